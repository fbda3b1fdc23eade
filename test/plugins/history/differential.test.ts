import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { dayDate, git, write } from './git-fixture.ts';

const V1: Record<string, string> = {
  'src/cart.ts': `export function total(prices: number[]): number {
  return prices.reduce((a, b) => a + b, 0);
}

export function legacy(): number {
  return 0;
}

export function label(n: number): string {
  return 'total ' + n;
}
`,
  'src/old.ts': `export function gone(): number {
  return 1;
}
`,
  'py/tax.py': `def rate(region):
    return 0.2


def apply(amount, region):
    return amount * (1 + rate(region))
`,
};

/** v2: total's body changes, legacy goes, discount arrives above label (which only moves), old.ts goes, new.ts uses the cart, tax.apply changes. */
const V2: Record<string, string> = {
  'src/cart.ts': `export function total(prices: number[]): number {
  return Math.round(prices.reduce((a, b) => a + b, 0) * 100) / 100;
}

export function discount(prices: number[], pct: number): number {
  return total(prices) * (1 - pct);
}

export function label(n: number): string {
  return 'total ' + n;
}
`,
  'src/new.ts': `import { discount } from './cart.ts';
export function fresh(): number {
  return discount([1, 2], 0.1);
}
`,
  'py/tax.py': `def rate(region):
    return 0.2


def apply(amount, region):
    return round(amount * (1 + rate(region)), 2)
`,
};

describe('differential', function () {
  this.timeout(180000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir();
    write(ws, V1);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'v1'], dayDate(0));
    git(ws, ['tag', 'v1'], dayDate(0));
    fs.rmSync(path.join(ws, 'src/old.ts'));
    write(ws, V2);
    git(ws, ['add', '-A'], dayDate(1));
    git(ws, ['commit', '-q', '-m', 'v2'], dayDate(1));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(async () => {
    await h?.close();
  });

  it('between two git refs lists exactly the changed files, symbols, edges and coupling', async () => {
    const r = await h.call('differential', { agent_id: 'a', snapshot_a: 'v1', snapshot_b: 'HEAD' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.a.kind, 'git');
    assert.deepEqual(r.json.files, { added: ['src/new.ts'], removed: ['src/old.ts'], modified: ['py/tax.py', 'src/cart.ts'] });
    assert.deepEqual(r.json.nodes.changed, ['function:py/tax.py#apply', 'function:src/cart.ts#total']);
    assert.deepEqual(r.json.nodes.added, ['file:src/new.ts', 'function:src/cart.ts#discount', 'function:src/new.ts#fresh']);
    assert.deepEqual(r.json.nodes.removed, ['file:src/old.ts', 'function:src/cart.ts#legacy', 'function:src/old.ts#gone']);
    assert.ok(r.json.edges.added.includes('function:src/cart.ts#discount —calls→ function:src/cart.ts#total'), JSON.stringify(r.json.edges));
    assert.ok(r.json.edges.added.includes('function:src/new.ts#fresh —calls→ function:src/cart.ts#discount'));
    assert.ok(r.json.coupling.some((c: any) => c.a === 'src/cart.ts' && c.b === 'src/new.ts' && c.before === 0 && c.after > 0), JSON.stringify(r.json.coupling));
    // The same ref on both sides: nothing changed; HEAD against the live graph: nothing either.
    const same = await h.call('differential', { agent_id: 'a', snapshot_a: 'git:HEAD', snapshot_b: 'current' });
    assert.deepEqual(same.json.nodes, { added: [], removed: [], changed: [] }, JSON.stringify(same.json));
    assert.equal(same.json.edges.counts.added + same.json.edges.counts.removed, 0, JSON.stringify(same.json.edges));
  });

  it('narrows by a question and by focus nodes', async () => {
    const q = await h.call('differential', { agent_id: 'a', snapshot_a: 'v1', snapshot_b: 'HEAD', question: 'what changed in tax apply?' });
    assert.deepEqual(q.json.nodes.changed, ['function:py/tax.py#apply']);
    assert.deepEqual(q.json.nodes.added, []);
    const f = await h.call('differential', { agent_id: 'a', snapshot_a: 'v1', snapshot_b: 'HEAD', focus_nodes: ['py/tax.py'] });
    assert.deepEqual(f.json.files.modified, ['py/tax.py']);
    assert.deepEqual(f.json.nodes.changed, ['function:py/tax.py#apply']);
  });

  it('compares a persist checkpoint with the live graph (symbols by line span; no edges)', async () => {
    const cp = await h.call('persist', { agent_id: 'a', action: 'checkpoint', path: 'before-edit' });
    assert.equal(cp.result.isError, undefined, JSON.stringify(cp.json));
    write(ws, { 'src/new.ts': `import { discount } from './cart.ts';
export function fresh(): number {
  const base = discount([1, 2], 0.1);
  return base;
}
export function later(): number {
  return 2;
}
` });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = await h.call('differential', { agent_id: 'a', snapshot_a: 'before-edit', snapshot_b: 'current' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.a.kind, 'checkpoint');
    assert.deepEqual(r.json.files.modified, ['src/new.ts']);
    assert.deepEqual(r.json.nodes.added, ['function:src/new.ts#later']);
    assert.deepEqual(r.json.nodes.changed, ['function:src/new.ts#fresh']);
    assert.match(r.json.edges.unavailable, /checkpoint/);
    const missing = await h.call('differential', { agent_id: 'a', snapshot_a: 'checkpoint:nope', snapshot_b: 'current' });
    assert.equal(missing.result.isError, true);
    assert.match(missing.json.hint ?? JSON.stringify(missing.json), /before-edit/);
  });
});

describe('differential on a ref whose tree git cannot read in full', function () {
  this.timeout(180000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = tempDir();
    write(ws, { ...V1, 'docs/lost.md': '# Lost\n\nThe first text.\n' });
    // A 2 MiB asset (over what the engine reads: never exported) and a link (left out).
    fs.mkdirSync(path.join(ws, 'assets'));
    fs.writeFileSync(path.join(ws, 'assets/demo.bin'), Buffer.alloc(2 * 1024 * 1024, 7));
    fs.symlinkSync('/etc/hostname', path.join(ws, 'assets/host-link'));
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'v1'], dayDate(0));
    git(ws, ['tag', 'v1'], dayDate(0));
    const lost = git(ws, ['rev-parse', 'v1:docs/lost.md'], dayDate(0)).trim();
    write(ws, { ...V2, 'docs/lost.md': '# Lost\n\nThe second text.\n' });
    git(ws, ['add', '-A'], dayDate(1));
    git(ws, ['commit', '-q', '-m', 'v2'], dayDate(1));
    // As in a partial clone or a damaged store: v1's blob of docs/lost.md is gone.
    fs.rmSync(path.join(ws, '.git/objects', lost.slice(0, 2), lost.slice(2)));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(async () => {
    await h?.close();
  });

  it('builds the ref\'s graph without the unreadable file and names it, never reading the big asset or following the link', async () => {
    const r = await h.call('differential', { agent_id: 'a', snapshot_a: 'v1', snapshot_b: 'HEAD' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.a.unreadable, { count: 1, sample: ['docs/lost.md'] });
    assert.equal(r.json.b.unreadable, undefined);
    // The code still compares as without the asset: same answer as the repository above.
    assert.deepEqual(r.json.nodes.changed, ['function:py/tax.py#apply', 'function:src/cart.ts#total']);
    assert.ok(r.json.files.added.includes('docs/lost.md'), JSON.stringify(r.json.files));
    assert.ok(![...r.json.files.added, ...r.json.files.removed, ...r.json.files.modified].some((f: string) => f.startsWith('assets/')), JSON.stringify(r.json.files));
  });
});

describe('differential on a workspace inside a subdirectory of its repository', function () {
  this.timeout(180000);
  let h: Harness;
  let repo: string;
  before(async () => {
    repo = tempDir();
    const under = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).map(([p, t]) => [`app/${p}`, t]));
    write(repo, { ...under(V1), 'lib/outside.ts': 'export function outside(): number {\n  return 1;\n}\n' });
    git(repo, ['init', '-q', '-b', 'main'], dayDate(0));
    git(repo, ['add', '-A'], dayDate(0));
    git(repo, ['commit', '-q', '-m', 'v1'], dayDate(0));
    git(repo, ['tag', 'v1'], dayDate(0));
    fs.rmSync(path.join(repo, 'app/src/old.ts'));
    write(repo, { ...under(V2), 'lib/outside.ts': 'export function outside(): number {\n  return 2;\n}\nexport function more(): number {\n  return 3;\n}\n' });
    git(repo, ['add', '-A'], dayDate(1));
    git(repo, ['commit', '-q', '-m', 'v2'], dayDate(1));
    h = await connect({ workspaceRoot: path.join(repo, 'app'), env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: path.join(repo, 'app') });
  });
  after(async () => {
    await h?.close();
  });

  it('compares the workspace’s part of each ref, with paths as the workspace names them, and nothing outside it', async () => {
    const r = await h.call('differential', { agent_id: 'a', snapshot_a: 'v1', snapshot_b: 'HEAD' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.deepEqual(r.json.files, { added: ['src/new.ts'], removed: ['src/old.ts'], modified: ['py/tax.py', 'src/cart.ts'] });
    assert.deepEqual(r.json.nodes.changed, ['function:py/tax.py#apply', 'function:src/cart.ts#total']);
    // Asked again (the workspace's place in the repository is read once per process): the same answer.
    const again = await h.call('differential', { agent_id: 'a', snapshot_a: 'v1', snapshot_b: 'git:HEAD~0' });
    assert.deepEqual(again.json.files, r.json.files);
  });
});
