import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

// The bug: the cache key ignores `locale`, so a French user can be served the English page. It was
// copied into the reports module with other names; `fresh` is unrelated code.
const BUG = (fn: string, cache: string, key: string, render: string) => `const ${cache} = new Map<string, string>();

export function ${fn}(${key}: string, locale: string, load: (k: string, l: string) => string): string {
  const hit = ${cache}.get(${key});
  if (hit !== undefined) {
    return hit;
  }
  const value = ${render}(load(${key}, locale));
  ${cache}.set(${key}, value);
  if (${cache}.size > 1000) {
    ${cache}.clear();
  }
  return value;
}

function ${render}(s: string): string {
  return s.trim();
}
`;

const FILES: Record<string, string> = {
  'src/pages.ts': BUG('renderPage', 'pages', 'slug', 'tidy'),
  'src/reports.ts': BUG('renderReport', 'reportCache', 'reportId', 'clean'),
  'src/fresh.ts': `export function fresh(items: string[], now: number): string[] {
  const out: string[] = [];
  for (const item of items) {
    const [name, stamp] = item.split('@');
    if (Number(stamp) > now - 3600) out.push(name.toUpperCase());
  }
  out.sort();
  return out.filter((x, i) => out.indexOf(x) === i);
}
`,
};

describe('antibodies: create from a bug, list, scan for its twin', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  let id = '';
  it('creates an antibody from the buggy function and refuses the same pattern twice', async () => {
    const r = await h.call('antibody_create', { agent_id: 'a', name: 'cache key ignores locale', severity: 'critical', pattern: { from_node: 'function:src/pages.ts#renderPage' } });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    id = r.json.antibody.id;
    assert.match(id, /^ab_[0-9a-f]{10}$/);
    assert.equal(r.json.antibody.kind, 'shape');
    assert.ok(r.json.antibody.specificity >= 0.15);
    const again = await h.call('antibody_create', { agent_id: 'b', name: 'same again', pattern: { from_node: 'function:src/pages.ts#renderPage' } });
    assert.equal(again.result.isError, true);
    assert.match(JSON.stringify(again.json), /duplicate of antibody/);
  });

  it('finds the renamed copy in another file and not the unrelated function or the origin', async () => {
    const r = await h.call('antibody_scan', { agent_id: 'a' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const nodes = r.json.matches.map((m: any) => m.node);
    assert.deepEqual(nodes, ['function:src/reports.ts#renderReport']);
    assert.equal(r.json.matches[0].similarity, 1);
    assert.equal(r.json.matches[0].severity, 'critical');
    // A lower similarity_threshold does not override the antibody's own min_similarity (0.75): said, not silent.
    const low = await h.call('antibody_scan', { agent_id: 'a', similarity_threshold: 0.5 });
    assert.deepEqual(low.json.thresholds_raised, [{ antibody: id, threshold: 0.75 }]);
    assert.equal(r.json.thresholds_raised, undefined);
  });

  it('a query antibody matches code, and disable/enable/delete take effect', async () => {
    const q = await h.call('antibody_create', { agent_id: 'a', name: 'cache cleared wholesale', pattern: { language: 'typescript', query: '(call_expression function: (member_expression property: (property_identifier) @p (#eq? @p "clear"))) @hit' } });
    assert.equal(q.result.isError, undefined, JSON.stringify(q.json));
    const scan = await h.call('antibody_scan', { agent_id: 'a', antibody_ids: [q.json.antibody.id] });
    assert.deepEqual(scan.json.matches.map((m: any) => `${m.file}:${m.lines[0]}`).sort(), ['src/pages.ts:11', 'src/reports.ts:11']);
    // total counts what was found, not what max_matches_per_antibody kept (it said 1 here).
    const one = await h.call('antibody_scan', { agent_id: 'a', antibody_ids: [q.json.antibody.id], max_matches_per_antibody: 1 });
    assert.equal(one.json.matches.length, 1);
    assert.equal(one.json.total, 2);
    assert.deepEqual(one.json.capped, [{ antibody: q.json.antibody.id, found: 2, kept: 1 }]);
    assert.equal(scan.json.capped, undefined);
    await h.call('antibody_create', { agent_id: 'a', action: 'disable', antibody_id: id });
    const list = await h.call('antibody_list', { agent_id: 'a' });
    assert.deepEqual(list.json.antibodies.map((a: any) => a.id), [q.json.antibody.id]);
    assert.equal(list.json.disabled, 1);
    const none = await h.call('antibody_scan', { agent_id: 'a', antibody_ids: [id] });
    assert.equal(none.json.total, 0);
    await h.call('antibody_create', { agent_id: 'a', action: 'delete', antibody_id: q.json.antibody.id });
    const after = await h.call('antibody_list', { agent_id: 'a', include_disabled: true });
    assert.deepEqual(after.json.antibodies.map((a: any) => a.id), [id]);
  });

  it('refuses a too generic query, and creation on a read-only server', async () => {
    const generic = await h.call('antibody_create', { agent_id: 'a', name: 'any identifier', pattern: { query: '(identifier) @hit' } });
    assert.equal(generic.result.isError, true);
    assert.match(JSON.stringify(generic.json), /too generic/);
    // A Python query without pattern.language: the error says which grammar it is for (it suggested `keywords`, no antibody option).
    const py = await h.call('antibody_create', { agent_id: 'a', name: 'py', pattern: { query: '(call function: (attribute object: (identifier) @o) (#eq? @o "warnings")) @hit' } });
    assert.equal(py.result.isError, true);
    assert.match(py.json.error.hint, /compiles for python: pass pattern\.language/);
    const ro = await connect({ workspaceRoot: h.workspace, env: { M1ND_TOOL_TIER: 'full', M1ND_READ_ONLY: '1' } });
    try {
      const r = await ro.call('antibody_create', { agent_id: 'a', name: 'x', pattern: { from_node: 'function:src/fresh.ts#fresh' } });
      assert.equal(r.result.isError, true);
      assert.match(JSON.stringify(r.json), /READ_ONLY/);
    } finally {
      await ro.close();
    }
  });
});

// The planted bug: SQL built by concatenation. orders.py has a renamed copy; misc.py is unrelated.
const LOOKUP = (fn: string, db: string, id: string, cols: string, table: string) => `def ${fn}(${db}, ${id}, ${cols}):
    columns = ", ".join(${cols})
    sql = "SELECT " + columns + " FROM ${table} WHERE id = " + str(${id})
    cursor = ${db}.cursor()
    cursor.execute(sql)
    row = cursor.fetchone()
    if row is None:
        return None
    return dict(zip(${cols}, row))
`;
const FIXED = `USER_COLUMNS = {"id", "name", "email"}


def fetch_user(db, user_id, fields):
    allowed = [f for f in fields if f in USER_COLUMNS]
    with db.cursor() as cursor:
        cursor.execute("SELECT %s FROM users WHERE id = ?" % ", ".join(allowed), (user_id,))
        return {k: v for k, v in zip(allowed, cursor.fetchone() or [])}
`;

describe('antibodies from a learn correction', function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = writeFixtureRepo(tempDir(), {
      'app/users.py': LOOKUP('fetch_user', 'db', 'user_id', 'fields', 'users'),
      'app/orders.py': LOOKUP('fetch_order', 'conn', 'order_id', 'wanted', 'orders'),
      'app/misc.py': `def tally(values, limit):\n    total = 0\n    for v in values:\n        if v > limit:\n            total += limit\n        else:\n            total += v\n    return total\n`,
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false } } } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('without a correction, from_learn says how to give one', async () => {
    const r = await h.call('antibody_create', { agent_id: 'a', name: 'x', pattern: { from_learn: 'latest' } });
    assert.equal(r.result.isError, true);
    assert.match(JSON.stringify(r.json), /STATE_NOT_FOUND[\s\S]*learn\(/);
  });

  it('the shape confirmed by learn, captured before the fix, finds the planted twin', async () => {
    const query = 'where is the user lookup sql injection';
    const learn = await h.call('learn', { agent_id: 'a', query, feedback: 'correct', node_ids: ['function:app/users.py#fetch_user'] });
    assert.equal(learn.result.isError, undefined, JSON.stringify(learn.json));
    // The agent fixes the bug; the graph now holds the fixed code.
    (await import('node:fs')).writeFileSync(`${h.workspace}/app/users.py`, FIXED);
    await h.call('ingest', { agent_id: 'a', path: h.workspace });

    const r = await h.call('antibody_create', { agent_id: 'a', name: 'SQL built by concatenation', severity: 'critical', pattern: { from_learn: query } });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    assert.equal(r.json.antibody.origin, 'function:app/users.py#fetch_user');
    assert.deepEqual([r.json.antibody.learned_from.query, r.json.antibody.learned_from.shape_from], [query, 'correction']);
    const scan = await h.call('antibody_scan', { agent_id: 'a', antibody_ids: [r.json.antibody.id] });
    assert.deepEqual(scan.json.matches.map((m: any) => m.node), ['function:app/orders.py#fetch_order']);

    // The fixed function's own shape no longer describes the bug: it does not find the twin.
    const now = await h.call('antibody_create', { agent_id: 'a', name: 'from the fixed code', pattern: { from_node: 'function:app/users.py#fetch_user' } });
    assert.equal(now.result.isError, undefined, JSON.stringify(now.json));
    const none = await h.call('antibody_scan', { agent_id: 'a', antibody_ids: [now.json.antibody.id] });
    assert.deepEqual(none.json.matches.map((m: any) => m.node), []);
  });
});
