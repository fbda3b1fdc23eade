import assert from 'node:assert/strict';
import type { Harness } from '../../../helpers/mcp.ts';
import { ingestedFixture } from './analysis-fixture.ts';

/** A class whose tests construct it and call three of its four methods. */
const FILES: Record<string, string> = {
  'shop/basket.py': `class Basket:
    def __init__(self, owner):
        self.owner = owner
        self.items = []

    def add_item(self, item):
        self.items.append(item)

    def remove_item(self, item):
        self.items.remove(item)

    def count_items(self):
        return len(self.items)

    def export_items(self):
        return list(self.items)
`,
  'tests/test_basket.py': `from shop.basket import Basket


def test_basket():
    basket = Basket("ada")
    basket.add_item("pear")
    basket.remove_item("pear")
    assert basket.count_items() == 0
`,
};

describe('missing: a constructor is tested when a test constructs its class', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: FILES, watch: false });
  });
  after(() => h.close());

  it('reports the method no test calls, not the constructor the tests run', async () => {
    const { json } = await h.call('missing', { agent_id: 'q', query: 'basket items', top_k: 20 });
    const untested = json.holes.filter((x: { kind: string }) => x.kind === 'untested').map((x: { node: { id: string } }) => x.node.id);
    assert.deepEqual(untested, ['method:shop/basket.py#Basket.export_items'], JSON.stringify(json.holes));
    const hole = json.holes.find((x: { kind: string }) => x.kind === 'untested');
    assert.match(hole.evidence, /^4 of 5 sibling methods in Basket are tested/);
  });
});
