import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { minimalArguments } from '../../core/index.ts';
import { advertisedOutput } from '../../core/catalog.ts';
import { connect, tempDir, type Harness } from '../helpers/mcp.ts';
import { writeFixtureRepo } from '../helpers/fixture-repo.ts';
import { pgOrSkip } from '../helpers/pg.ts';
import pg from 'pg';

/** Built-in verbs with no output schema, and why: their result has no fixed top-level shape. */
export const WITHOUT_OUTPUT: Record<string, string> = {
  diverge: 'the report is assembled per section asked for (files, coupling changes, anomalies), each present only when requested and found',
  audit:
    'its default rendering is Markdown text (content blocks, no JSON object); MCP requires structuredContent on every result of a tool declaring an output schema, and sending the JSON report beside the Markdown would double what token_budget bounds. report_format "json" returns the report as JSON text',
};

/** Verbs that only work against a team store (PostgreSQL): called in their own test, skipped without one. */
const TEAM_STORE = new Set(['store_import']);

const ADD = 'function:src/math.ts#add';
const MUL = 'function:src/math.ts#mul';
const TOTAL = 'function:src/cart.ts#total';
const NODE_TRACE = `Error: bad price
    at total (/srv/shop/src/cart.ts:21:37)
    at Object.<anonymous> (/srv/shop/main.ts:3:1)`;
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** Runs git in dir with a fixed identity, isolated from the machine's configuration. */
function git(dir: string, args: string[], date: string): void {
  execFileSync('git', args, {
    cwd: dir,
    env: { ...process.env, GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.com', GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
  });
}

/** The fixture repository with a doctrine file and a short git history (two files changing together). */
function fixture(): string {
  const dir = writeFixtureRepo(tempDir('m1nd-output-'));
  fs.writeFileSync(path.join(dir, 'AGENTS.md'), '# Doctrine\n\n## Rules\n\n- Keep `add` pure.\n- Run the tests before committing.\n');
  // A layer manifest for the xray verbs, and a file the daemon steps delete (a file_deleted alert).
  fs.writeFileSync(path.join(dir, 'm1nd.layers.json'), JSON.stringify({ layers: [{ name: 'app', paths: ['src/cart.ts'] }, { name: 'core', paths: ['src/math.ts', 'src/legacy.ts'] }] }));
  fs.writeFileSync(path.join(dir, 'src/legacy.ts'), 'export function legacy(): number {\n  return 1;\n}\n');
  git(dir, ['init', '-q', '-b', 'main'], '2024-01-01T12:00:00Z');
  git(dir, ['add', '-A'], '2024-01-01T12:00:00Z');
  git(dir, ['commit', '-q', '-m', 'initial'], '2024-01-01T12:00:00Z');
  for (let day = 2; day <= 6; day++) {
    const date = `2024-01-0${day}T12:00:00Z`;
    for (const f of ['src/math.ts', 'src/cart.ts']) fs.appendFileSync(path.join(dir, f), `// change ${day}\n`);
    git(dir, ['add', '-A'], date);
    git(dir, ['commit', '-q', '-m', day === 4 ? 'fix: bad price in total' : `change ${day}`], date);
  }
  return dir;
}

type Ids = Record<string, any>;
/** One call: the verb, its arguments (from ids earlier calls saved), and what to save from its answer. */
interface Step {
  verb: string;
  args?: (ids: Ids) => Record<string, unknown>;
  save?: (json: any, ids: Ids) => void;
}

/** Calls in an order where each one's ids exist; verbs not named here are called with their minimal arguments. */
const STEPS: Step[] = [
  { verb: 'ingest', args: () => ({ path: '.' }) },
  { verb: 'view', args: () => ({ file_path: 'src/math.ts' }) },
  { verb: 'impact', args: () => ({ node_id: ADD }) },
  { verb: 'why', args: () => ({ source: TOTAL, target: ADD }) },
  { verb: 'counterfactual', args: () => ({ node_ids: [ADD] }) },
  { verb: 'type_trace', args: () => ({ target: ADD }) },
  { verb: 'learn', args: () => ({ query: 'adding numbers', feedback: 'correct', node_ids: [ADD] }) },
  { verb: 'resonate', args: () => ({ node_id: ADD }) },
  { verb: 'document_resolve', args: () => ({ path: 'docs/guide.md' }) },
  { verb: 'document_bindings', args: () => ({ path: 'docs/guide.md' }) },
  { verb: 'document_drift', args: () => ({ path: 'docs/guide.md' }) },
  { verb: 'federate', args: () => ({ repos: [{ name: 'app', path: 'src' }, { name: 'lib', path: 'py' }] }) },
  { verb: 'federation_view', args: () => ({ view: 'federated' }) },
  // federate switched this agent to the federated graph: back to the workspace graph for the calls after this one.
  { verb: 'federation_view', args: () => ({ view: 'workspace' }) },
  { verb: 'timeline', args: () => ({ node: 'src/math.ts' }) },
  { verb: 'predict', args: () => ({ changed_node: 'src/math.ts' }) },
  { verb: 'trace', args: () => ({ error_text: NODE_TRACE }) },
  { verb: 'hypothesize', args: () => ({ claim: 'total calls add' }) },
  { verb: 'perspective_start', args: () => ({ query: 'add numbers' }), save: (j, ids) => ((ids.p = j.perspective_id), (ids.v = j.route_set_version)) },
  { verb: 'perspective_routes', args: (ids) => ({ perspective_id: ids.p }) },
  { verb: 'perspective_inspect', args: (ids) => ({ perspective_id: ids.p, route_index: 1, route_set_version: ids.v }) },
  { verb: 'perspective_peek', args: (ids) => ({ perspective_id: ids.p, route_index: 1, route_set_version: ids.v }) },
  { verb: 'perspective_suggest', args: (ids) => ({ perspective_id: ids.p, route_set_version: ids.v }) },
  { verb: 'perspective_affinity', args: (ids) => ({ perspective_id: ids.p, route_index: 1, route_set_version: ids.v }) },
  { verb: 'perspective_branch', args: (ids) => ({ perspective_id: ids.p, branch_name: 'side' }), save: (j, ids) => (ids.branch = j.perspective_id ?? j.branch_perspective_id ?? j.branch_id) },
  { verb: 'perspective_follow', args: (ids) => ({ perspective_id: ids.p, route_index: 1, route_set_version: ids.v }) },
  { verb: 'perspective_back', args: (ids) => ({ perspective_id: ids.p }) },
  { verb: 'perspective_compare', args: (ids) => ({ perspective_id_a: ids.p, perspective_id_b: ids.branch ?? ids.p }) },
  { verb: 'perspective_close', args: (ids) => ({ perspective_id: ids.p }) },
  {
    verb: 'runtime_overlay',
    args: () => ({
      spans: [{ resourceSpans: [{ resource: { attributes: [str('service.name', 'shop')] }, scopeSpans: [{ spans: [{ name: 'add', startTimeUnixNano: '0', endTimeUnixNano: '5000000', attributes: [str('code.function', 'add')], status: {} }] }] }] }],
    }),
  },
  { verb: 'trail_save', args: () => ({ label: 'adding', visited_nodes: [ADD, TOTAL], hypotheses: ['total sums with add'] }), save: (j, ids) => (ids.trail = j.trail_id) },
  { verb: 'trail_resume', args: (ids) => ({ trail_id: ids.trail }) },
  { verb: 'trail_save', args: () => ({ label: 'multiplying', visited_nodes: [MUL] }), save: (j, ids) => (ids.trail2 = j.trail_id) },
  { verb: 'trail_merge', args: (ids) => ({ trail_ids: [ids.trail, ids.trail2] }) },
  { verb: 'lock_create', args: () => ({ scope: 'node', root_nodes: [ADD] }), save: (j, ids) => (ids.lock = j.lock_id) },
  { verb: 'lock_watch', args: (ids) => ({ lock_id: ids.lock, strategy: 'manual' }) },
  { verb: 'lock_diff', args: (ids) => ({ lock_id: ids.lock }) },
  { verb: 'lock_rebase', args: (ids) => ({ lock_id: ids.lock }) },
  { verb: 'lock_release', args: (ids) => ({ lock_id: ids.lock }) },
  { verb: 'surgical_context', args: () => ({ file_path: 'src/math.ts' }) },
  { verb: 'surgical_context_v2', args: () => ({ file_path: 'src/math.ts' }) },
  { verb: 'edit_preview', args: () => ({ file_path: 'src/math.ts', hunks: [{ old_text: '/** Adds two numbers. */', new_text: '/** Adds two numbers (a + b). */' }] }), save: (j, ids) => (ids.preview = j.preview_id) },
  { verb: 'edit_commit', args: (ids) => ({ preview_id: ids.preview, confirm: true }) },
  { verb: 'memorize', args: () => ({ claims: [{ text: 'add stays pure', evidence: [ADD] }] }), save: (j, ids) => (ids.claim = j.stored[0].id) },
  { verb: 'promote', args: (ids) => ({ brain: 'team', claim: ids.claim, reason: 'checked' }) },
  { verb: 'boot_memory', args: () => ({ action: 'set', key: 'style', value: 'small functions' }) },
  { verb: 'mission_start', save: (j, ids) => (ids.mission = j.mission_id) },
  { verb: 'mission_event', args: (ids) => ({ mission_id: ids.mission, event: { action: 'view', path: 'src/math.ts' }, outcome: 'success' }) },
  { verb: 'mission_next', args: (ids) => ({ mission_id: ids.mission }) },
  { verb: 'mission_verify', args: (ids) => ({ mission_id: ids.mission, claim: 'add is pure', evidence_refs: [ADD] }) },
  { verb: 'mission_handoff', args: (ids) => ({ mission_id: ids.mission }) },
  { verb: 'mission_close', args: (ids) => ({ mission_id: ids.mission, summary: 'done' }) },
  { verb: 'delegate', save: (j, ids) => (ids.delegation = j.delegation_id) },
  { verb: 'debrief', args: (ids) => ({ delegation_id: ids.delegation, outcome: 'success', touched_paths: ['src/cart.ts'] }) },
  { verb: 'scan', args: () => ({ pattern: 'error_handling' }) },
  { verb: 'antibody_create', args: () => ({ name: 'impure add', pattern: { from_node: ADD } }) },
  { verb: 'differential', args: () => ({ snapshot_a: 'git:HEAD~1', snapshot_b: 'current' }) },
  { verb: 'epidemic', args: () => ({ infected_nodes: ['src/math.ts'] }) },
  { verb: 'heuristics_surface', args: () => ({ file_path: 'src/math.ts' }) },
  { verb: 'xray_orient' },
  { verb: 'xray_gate', args: () => ({ node: 'src/math.ts', planned_imports: ['src/cart.ts'] }) },
  { verb: 'xray_paint' },
  { verb: 'xray_paint', args: () => ({ mode: 'commit' }) },
  { verb: 'xray_retag', args: () => ({ selector: { path_prefix: 'src' }, op: 'add', tags: ['reviewed'] }), save: (j, ids) => (ids.tags = j.tags_version) },
  { verb: 'xray_retag', args: (ids) => ({ selector: { path_prefix: 'src' }, op: 'add', tags: ['reviewed'], mode: 'commit', expect_version: ids.tags }) },
  { verb: 'xray_apply', args: () => ({ selector: { path_prefix: 'py' }, transform: { kind: 'ensure_header_tag', tag: 'owned by the platform team' } }), save: (j, ids) => (ids.plan = j.plan_version) },
  { verb: 'xray_apply', args: (ids) => ({ selector: { path_prefix: 'py' }, transform: { kind: 'ensure_header_tag', tag: 'owned by the platform team' }, mode: 'commit', expect_version: ids.plan }) },
  { verb: 'xray_ledger' },
  { verb: 'auto_ingest_start', args: () => ({ roots: ['docs'] }) },
  { verb: 'auto_ingest_tick' },
  { verb: 'auto_ingest_status' },
  { verb: 'auto_ingest_stop' },
  // The background cycle waits 10 minutes of quiet: the deletion is seen by the daemon_tick call.
  { verb: 'daemon_start', args: () => ({ watch_paths: ['src'], poll_interval_ms: 600_000 }) },
  { verb: 'daemon_tick', args: (ids) => (fs.rmSync(path.join(ids.root, 'src/legacy.ts')), {}), save: (j, ids) => (ids.alert = j.alerts_raised.find((a: any) => a.kind === 'file_deleted')?.id) },
  { verb: 'daemon_status' },
  { verb: 'alerts_list', save: (j, ids) => assert.ok(j.alerts.some((a: any) => a.id === ids.alert), 'the file_deleted alert is listed') },
  { verb: 'alerts_ack', args: (ids) => ({ alert_ids: [ids.alert] }) },
  { verb: 'daemon_stop' },
];

type VerbRecord = ReturnType<Harness['host']['current']['records']>[number];

/** One call through the SDK client (which validates structuredContent against the listed outputSchema and throws on a mismatch), checked against the full TypeBox schema and the text. */
async function checkedCall(h: Harness, verb: VerbRecord, args: Record<string, unknown>): Promise<any> {
  const { result, json } = await h.call(verb.name, { ...args, agent_id: 'schema-test' }).catch((error: Error) => {
    throw new Error(`${verb.name}(${JSON.stringify(args).slice(0, 200)}): ${error.message}`);
  });
  assert.ok(!result.isError, `${verb.name}(${JSON.stringify(args).slice(0, 200)}) failed: ${JSON.stringify(json).slice(0, 400)}`);
  assert.ok(result.structuredContent, `${verb.name} returns structuredContent`);
  const check = TypeCompiler.Compile(verb.output!);
  const sent = JSON.parse(JSON.stringify(result.structuredContent));
  assert.ok(check.Check(sent), `${verb.name}: ${JSON.stringify([...check.Errors(sent)].slice(0, 3))}`);
  assert.deepEqual(sent, json, `${verb.name}: the text and the structured result say the same`);
  return json;
}

describe('output schemas of the built-in verbs', function () {
  this.timeout(300_000);
  let h: Harness;
  let root: string;
  let cache: string;
  before(async () => {
    root = fixture();
    cache = tempDir('m1nd-cache-');
    h = await connect({ workspaceRoot: root, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: cache } });
  });
  after(() => h?.close());

  it('declares an output schema on every built-in verb except those listed with the reason they have none', () => {
    const without = h.host.current.records().filter((v) => !v.output && !v.name.startsWith('test_')).map((v) => v.name).sort();
    assert.deepEqual(without, Object.keys(WITHOUT_OUTPUT).sort(), 'a verb without an output schema is listed in WITHOUT_OUTPUT with its reason');
  });

  it('returns structuredContent that fits the advertised schema and says what the text says, from one real call of each verb that declares one', async () => {
    const { tools } = await h.client.listTools();
    const advertised = new Map(tools.map((t) => [t.name, t]));
    const declaring = h.host.current.records().filter((v) => v.output && !TEAM_STORE.has(v.name));
    const ids: Ids = { root };
    const called = new Set<string>();
    const callOne = async (verb: VerbRecord, args: Record<string, unknown>) => {
      const json = await checkedCall(h, verb, args);
      called.add(verb.name);
      return json;
    };
    for (const step of STEPS) {
      const verb = h.host.current.get(step.verb)!;
      assert.ok(verb?.output, `${step.verb} declares an output schema`);
      const json = await callOne(verb, { ...minimalArguments(verb.input), ...(step.args?.(ids) ?? {}) });
      step.save?.(json, ids);
    }
    for (const verb of declaring) {
      const tool = advertised.get(verb.name);
      if (tool) assert.deepEqual(tool.outputSchema, advertisedOutput(verb), `${verb.name}: tools/list carries its top-level output schema`);
      if (!called.has(verb.name) && !verb.name.startsWith('test_')) await callOne(verb, minimalArguments(verb.input));
    }
    assert.equal(called.size, declaring.length, 'every verb declaring an output schema was called');
  });

  it('returns structuredContent that fits the schema from the team-store verbs, on a server with a team store', async function () {
    const base = await pgOrSkip(this);
    const name = `m1nd_schema_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(base);
    url.pathname = `/${name}`;
    // The same workspace and cache as the embedded-store server above: its claims and trails are there to import.
    const team = await connect({ workspaceRoot: root, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: cache, M1ND_STORE_URL: url.toString() } });
    try {
      const { tools } = await team.client.listTools();
      for (const verbName of TEAM_STORE) {
        const verb = team.host.current.get(verbName)!;
        assert.ok(verb?.output, `${verbName} declares an output schema`);
        assert.deepEqual(tools.find((t) => t.name === verbName)?.outputSchema, advertisedOutput(verb), `${verbName}: tools/list carries its top-level output schema`);
      }
      const storeImport = team.host.current.get('store_import')!;
      const dry = await checkedCall(team, storeImport, { dry_run: true });
      assert.ok(dry.imported > 0, `the claims and trails of the embedded store are to be copied: ${JSON.stringify(dry.counts)}`);
      const done = await checkedCall(team, storeImport, { dry_run: false });
      assert.equal(done.imported, dry.imported, 'the run copies what the dry run counted');
    } finally {
      await team.close();
    }
  });
});
