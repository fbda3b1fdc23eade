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
  });

  it('a query antibody matches code, and disable/enable/delete take effect', async () => {
    const q = await h.call('antibody_create', { agent_id: 'a', name: 'cache cleared wholesale', pattern: { language: 'typescript', query: '(call_expression function: (member_expression property: (property_identifier) @p (#eq? @p "clear"))) @hit' } });
    assert.equal(q.result.isError, undefined, JSON.stringify(q.json));
    const scan = await h.call('antibody_scan', { agent_id: 'a', antibody_ids: [q.json.antibody.id] });
    assert.deepEqual(scan.json.matches.map((m: any) => `${m.file}:${m.lines[0]}`).sort(), ['src/pages.ts:11', 'src/reports.ts:11']);
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
