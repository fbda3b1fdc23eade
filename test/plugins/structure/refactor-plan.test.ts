import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// Two tight clusters in one folder — billing (invoice, tax, money) and search (index, rank, tokens) —
// joined by one bridge: invoice.ts calls search's `find`.
const FILES: Record<string, string> = {
  'src/money.ts': `export function cents(x: number): number { return Math.round(x * 100); }
export function fmt(c: number): string { return (c / 100).toFixed(2); }
`,
  'src/tax.ts': `import { cents, fmt } from './money.ts';
export function vat(x: number): number { return cents(x) * 0.2; }
export function label(x: number): string { return fmt(vat(x)); }
`,
  'src/invoice.ts': `import { cents, fmt } from './money.ts';
import { vat, label } from './tax.ts';
import { find } from './index.ts';
export function invoice(x: number): string { find('customer'); return fmt(cents(x) + vat(x)) + label(x); }
export function total(xs: number[]): number { return xs.reduce((s, x) => s + cents(x) + vat(x), 0); }
`,
  'src/tokens.ts': `export function tokens(s: string): string[] { return s.split(/\\s+/); }
export function lower(s: string): string { return s.toLowerCase(); }
`,
  'src/rank.ts': `import { tokens, lower } from './tokens.ts';
export function score(q: string, d: string): number { return tokens(lower(q)).filter((t) => tokens(lower(d)).includes(t)).length; }
export function best(q: string, ds: string[]): string { return ds.sort((a, b) => score(q, b) - score(q, a))[0]; }
`,
  'src/index.ts': `import { tokens, lower } from './tokens.ts';
import { best, score } from './rank.ts';
const docs: string[] = [];
export function find(q: string): string { return best(lower(q), docs.filter((d) => score(q, d) > 0 && tokens(d).length > 0)); }
export function add(d: string): void { docs.push(lower(d)); tokens(d); }
`,
};

describe('refactor_plan on a folder holding two clusters', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('finds the two clusters as communities, with the bridge target as the search side\'s interface', async () => {
    const r = await h.call('refactor_plan', { agent_id: 'a', scope: 'src' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.level, 'file');
    assert.equal(r.json.communities, 2, JSON.stringify(r.json));
    const groups = r.json.plans.map((p: any) => p.units.join(','));
    assert.deepEqual(groups.sort(), ['src/index.ts,src/rank.ts,src/tokens.ts', 'src/invoice.ts,src/money.ts,src/tax.ts']);
    const search = r.json.plans.find((p: any) => p.units.includes('src/index.ts'));
    assert.deepEqual(search.interface.map((i: any) => i.unit), ['src/index.ts']);
    assert.ok(search.cohesion > 0.8);
    assert.ok(search.breaks.dependents >= 1, 'invoice depends on it');
    const billing = r.json.plans.find((p: any) => p.units.includes('src/invoice.ts'));
    assert.deepEqual(billing.depends_on.map((i: any) => i.unit), ['src/index.ts']);
  });

  it('splits one file into communities of its symbols when the scope is that file', async () => {
    const r = await h.call('refactor_plan', { agent_id: 'a', scope: 'src/index.ts', min_community_size: 1 });
    assert.equal(r.json.level, 'symbol');
    assert.ok(r.json.units >= 2);
  });
});
