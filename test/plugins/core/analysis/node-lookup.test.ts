import assert from 'node:assert/strict';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

/** A Go package whose methods sit in the same file as their type, below it. */
const GO_FILES: Record<string, string> = {
  'cart/cart.go': `package cart

// Cart holds items.
type Cart struct {
	items []int
}

// Add puts an item in the cart.
func (c *Cart) Add(item int) {
	c.items = append(c.items, item)
}

// Total sums the items.
func (c *Cart) Total() int {
	sum := 0
	for _, i := range c.items {
		sum += i
	}
	return sum
}

// NewCart makes an empty cart.
func NewCart() *Cart {
	return &Cart{}
}
`,
};

describe('node lookup shared by every verb taking a node', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: GO_FILES });
  });
  after(() => h.close());

  it('resolves file.go:LINE inside a method declared below its type to the method, not the file', async () => {
    for (const [line, id] of [
      [9, 'method:cart/cart.go#Cart.Add'],
      [10, 'method:cart/cart.go#Cart.Add'],
      [16, 'method:cart/cart.go#Cart.Total'],
      [4, 'type:cart/cart.go#Cart'],
      [24, 'function:cart/cart.go#NewCart'],
    ] as const) {
      const { json } = await h.call('impact', { agent_id: 'q', node_id: `cart/cart.go:${line}` });
      assert.equal(json.node.id, id, `line ${line}`);
      assert.equal(json.resolved_from.via, 'path_line');
    }
    const blank = (await h.call('impact', { agent_id: 'q', node_id: 'cart/cart.go:1' })).json;
    assert.equal(blank.node.id, 'file:cart/cart.go', 'a line outside every symbol is the file');
  });

  it('accepts a path suffix and path#Name, and why resolves the same way', async () => {
    assert.equal((await h.call('impact', { agent_id: 'q', node_id: 'cart.go:16' })).json.node.id, 'method:cart/cart.go#Cart.Total');
    const named = (await h.call('impact', { agent_id: 'q', node_id: 'cart/cart.go#Cart.Add' })).json;
    assert.equal(named.node.id, 'method:cart/cart.go#Cart.Add');
    assert.equal(named.resolved_from.via, 'path_name');
    const why = (await h.call('why', { agent_id: 'q', source: 'cart/cart.go:10', target: 'cart/cart.go#Cart' })).json;
    assert.equal(why.source.id, 'method:cart/cart.go#Cart.Add');
    assert.equal(why.target.id, 'type:cart/cart.go#Cart');
  });

  it('refuses an unknown node naming close matches and the call to make next', async () => {
    const res = await h.call('impact', { agent_id: 'q', node_id: 'Totl' });
    assert.equal(res.result.isError, true);
    assert.equal(res.json.error.code, 'M1ND_ERR_GRAPH_NODE_NOT_FOUND');
    assert.deepEqual(res.json.error.detail.suggestions, ['method:cart/cart.go#Cart.Total'], 'a typo still finds its symbol');
    assert.match(res.json.error.hint, /Call again with node_id: "method:cart\/cart.go#Cart.Total"/);
    const badPath = (await h.call('why', { agent_id: 'q', source: 'cart/crt.go:10', target: 'NewCart' })).json;
    assert.equal(badPath.error.detail.suggestions[0], 'file:cart/cart.go', 'a mistyped file names the file first');
    assert.match(badPath.error.hint, /Call again with source: "file:cart\/cart.go"/);
  });
});
