import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// `totalPrice` and `sumCosts` are one function copied with every name changed; `average` looks
// alike by size but has another shape; the Python pair is a copy too.
const FILES: Record<string, string> = {
  'src/cart.ts': `export function totalPrice(items: { price: number; qty: number }[], discount: number): number {
  let total = 0;
  for (const item of items) {
    if (item.qty <= 0) continue;
    total += item.price * item.qty;
  }
  if (discount > 0) {
    total = total - (total * discount) / 100;
  }
  return Math.round(total * 100) / 100;
}
`,
  'src/ledger.ts': `export function sumCosts(entries: { cost: number; count: number }[], rebate: number): number {
  let acc = 0;
  for (const e of entries) {
    if (e.count <= 0) continue;
    acc += e.cost * e.count;
  }
  if (rebate > 0) {
    acc = acc - (acc * rebate) / 100;
  }
  return Math.round(acc * 100) / 100;
}

export function average(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const result = sorted.length % 2 === 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle];
  console.log('median of', values.length, 'values is', result);
  return result;
}
`,
  'py/a.py': `def retry_fetch(url, attempts):
    last = None
    for i in range(attempts):
        try:
            return download(url, timeout=5 * (i + 1))
        except IOError as err:
            last = err
    raise RuntimeError(last)
`,
  'py/b.py': `def fetch_again(address, tries):
    previous = None
    for n in range(tries):
        try:
            return download(address, timeout=5 * (n + 1))
        except IOError as problem:
            previous = problem
    raise RuntimeError(previous)
`,
};

describe('twins on copy-pasted functions with renamed variables', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('pairs the renamed copies, in TypeScript and Python, with a reason, and not the different function', async () => {
    const r = await h.call('twins', { agent_id: 'a' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const ids = r.json.pairs.map((p: any) => [p.a.id, p.b.id].sort().join(' = '));
    assert.ok(ids.includes('function:src/cart.ts#totalPrice = function:src/ledger.ts#sumCosts'), JSON.stringify(r.json));
    assert.ok(ids.includes('function:py/a.py#retry_fetch = function:py/b.py#fetch_again'), JSON.stringify(r.json));
    assert.ok(!ids.some((x: string) => x.includes('#average')), 'a function of another shape is no twin');
    const ts = r.json.pairs.find((p: any) => p.a.id.includes('totalPrice') || p.b.id.includes('totalPrice'));
    assert.equal(ts.ast, 1);
    assert.match(ts.reason, /AST shape 100% alike/);
    assert.equal(r.json.time.stopped_early, false);
  });

  it('scope limits the comparison', async () => {
    const r = await h.call('twins', { agent_id: 'a', scope: 'py' });
    assert.equal(r.json.pairs.length, 1);
    assert.equal(r.json.compared.files, 2);
  });
});
