import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

/** A deterministic stream of small integers (the fixture's functions differ from each other). */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % 1000;
  };
}

const STATEMENTS: ((v: string, r: () => number) => string[])[] = [
  (v) => [`${v} = {}`],
  (v, r) => [`for k in range(${r()}):`, `    ${v}[k] = k * ${r()} - 1`],
  (v) => [`if not ${v}:`, `    raise ValueError("empty")`],
  (v) => [`while len(${v}) > 3:`, `    ${v}.popitem()`],
  (v) => [`try:`, `    ${v} = dict(sorted(${v}.items()))`, `except TypeError as exc:`, `    log(exc, level=2)`],
  (v) => [`with open("x.txt") as fh:`, `    fh.write(str(${v}))`],
  (v, r) => [`${v} = [x ** 2 for x in ${v} if x % ${r()} == 0]`],
  (v) => [`assert isinstance(${v}, (list, dict)), ${v}`],
  (v) => [`${v} = lambda a, b=None: (a or b, not a)`],
  (v, r) => [`if ${v} is None or ${v} < ${r()}:`, `    return -${r()}`, `elif ${v} >= 0:`, `    ${v} += 1`, `else:`, `    ${v} -= 1`],
  (v) => [`yield from ${v}`],
  (v) => [`del ${v}[0], ${v}[-1]`],
  (v) => [`global counter`, `counter = counter + ${v}.count(None) * 2`],
  (v, r) => [`${v} = {"a": ${r()}, "b": [${r()}, ${r()}], "c": (1, 2)}`],
];

/** A Python function of 9 statements picked by `seed`. */
function distinctFunction(name: string, seed: number): string {
  const r = prng(seed);
  const lines = [`def ${name}(data, limit=10):`];
  for (let k = 0; k < 9; k++) for (const l of STATEMENTS[r() % STATEMENTS.length]('data', r)) lines.push(`    ${l}`);
  lines.push('    return data');
  return lines.join('\n');
}

const PLANTED_A = `def merge_orders(left, right, key):
    out = {}
    for item in left:
        out[item[key]] = item
    for item in right:
        if item[key] not in out:
            out[item[key]] = item
        else:
            out[item[key]].update(item)
    return sorted(out.values(), key=lambda x: x[key])
`;
const PLANTED_B = `# Ünïcode before the copy: the ranges parsed are character offsets.
def fold_rows(first, second, field):
    acc = {}
    for row in first:
        acc[row[field]] = row
    for row in second:
        if row[field] not in acc:
            acc[row[field]] = row
        else:
            acc[row[field]].update(row)
    return sorted(acc.values(), key=lambda r: r[field])
`;

/** 60 Python modules of two functions unlike each other, and the planted copy as methods of two more. */
function repo(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 60; i++) files[`pkg/mod${String(i).padStart(2, '0')}.py`] = `${distinctFunction(`first_${i}`, 7 * i + 1)}\n\n\n${distinctFunction(`second_${i}`, 7 * i + 3)}\n`;
  files['pkg/orders.py'] = `import json\n\n\nclass Orders:\n${PLANTED_A.split('\n').map((l) => (l ? `    ${l.replace('def merge_orders(', 'def merge_orders(self, ')}` : l)).join('\n')}`;
  files['pkg/rows.py'] = `class Rows:\n    """Rows."""\n\n${PLANTED_B.split('\n').map((l) => (l ? `    ${l.replace('def fold_rows(', 'def fold_rows(self, ')}` : l)).join('\n')}`;
  return files;
}

const PLANTED = 'method:pkg/orders.py#Orders.merge_orders = method:pkg/rows.py#Rows.fold_rows';
const ids = (json: any) => json.pairs.map((p: any) => [p.a.id, p.b.id].sort().join(' = '));

describe('a truly cold twins parses only the files of candidate symbols', function () {
  this.timeout(240_000);

  it('right after an ingest (background facts job off): sketches every file, parses only the candidates\' files, finds the planted copy, and answers as the warm twins does', async () => {
    const ws = writeFixtureRepo(tempDir(), repo());
    // Without the ingest's findings, the scan_all below computes every file's facts (shapes included).
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { backgroundFacts: false, ingestFindings: false } } } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const parsedFacts = async () => (await h.call('health', { agent_id: 'a' })).json.structure.facts.parsed;
      const before = await parsedFacts();
      const r = await h.call('twins', { agent_id: 'a', node_types: ['function', 'method'], top_k: 500, token_budget: 20000 });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      const c = r.json.compared;
      assert.equal(c.files_sketched, 62, JSON.stringify(c));
      assert.equal(c.files, 62);
      assert.ok(c.files_parsed >= 2 && c.files_parsed < 31, `only the candidates' files are parsed: ${JSON.stringify(c)}`);
      assert.ok(c.candidates >= 2 && c.candidates < 62, JSON.stringify(c));
      assert.ok(ids(r.json).includes(PLANTED), JSON.stringify(r.json.pairs));
      assert.equal(await parsedFacts(), before, 'no file facts were computed');
      // The warm twins (every file's facts made by a scan) finds the same pairs.
      await h.call('scan_all', { agent_id: 'a' });
      const warm = await h.call('twins', { agent_id: 'a', node_types: ['function', 'method'], top_k: 500, token_budget: 20000 });
      assert.equal(warm.json.compared.files_sketched, undefined);
      assert.deepEqual(ids(warm.json), ids(r.json));
    } finally {
      await h.close();
    }
  });

  it('a new server over a store without the facts table: the same cold path and pairs', async () => {
    const ws = writeFixtureRepo(tempDir(), repo());
    const config = { options: { structure: { backgroundFacts: false, ingestFindings: false } } };
    const env = { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() };
    const first = await connect({ workspaceRoot: ws, env, config });
    let before: string[];
    try {
      await first.call('ingest', { agent_id: 'a', path: ws });
      await first.call('scan_all', { agent_id: 'a' });
      before = ids((await first.call('twins', { agent_id: 'a', node_types: ['function', 'method'], top_k: 500, token_budget: 20000 })).json);
    } finally {
      await first.close();
    }
    const store = join(ws, '.m1nd');
    assert.ok(existsSync(join(store, 'structure-facts.db')), 'the first server persisted its facts');
    for (const f of ['structure-facts.db', 'structure-facts.db-wal', 'structure-facts.db-shm']) rmSync(join(store, f), { force: true });
    const second = await connect({ workspaceRoot: ws, env, config });
    try {
      const r = await second.call('twins', { agent_id: 'b', node_types: ['function', 'method'], top_k: 500, token_budget: 20000 });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.equal(r.json.compared.files_sketched, 62, JSON.stringify(r.json.compared));
      assert.ok(r.json.compared.files_parsed < 31, JSON.stringify(r.json.compared));
      assert.ok(before.includes(PLANTED));
      assert.deepEqual(ids(r.json), before);
    } finally {
      await second.close();
    }
  });
});
