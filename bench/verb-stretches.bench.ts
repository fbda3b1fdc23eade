/**
 * "No call holds the event loop for long" (issue 11 §2), verb by verb: on the Python standard
 * library's stored graph, through a real host, each verb's first and second call with a 1 ms timer
 * beside it; prints the call's wall time and the longest stretches of main-thread CPU between two
 * ticks (Linux schedstat: a loaded machine's descheduling is not counted). The background facts job
 * is off, so the stretches are the verbs' own. `--store DIR` reuses (or keeps) an ingested store;
 * `--verbs a,b` picks the verbs (`all`: every verb in ARGS; default the five of issue 11's first
 * measure); `--prof DIR` writes a CPU profile and the stretches over 20 ms
 * (`verbs.cpuprofile`, `verbs.gaps.json`, monotonic µs) to cut it with.
 *
 * The ARGS table's keys: `verb?case` is a second argument set, and an args function reads earlier
 * answers (ids); the keys that change the graph (MUTATING) run their two rounds after the others'.
 * `--git DIR` runs the history verbs (GIT_ARGS) on a clone with history instead (the stdlib has none).
 *
 *   node --import tsx/esm bench/verb-stretches.bench.ts [--store DIR] [--verbs seek,scan_all,layers,twins,taint_trace] [--prof DIR] [--git DIR]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDir } from '../core/cache-file.ts';
import { useTokenizerCache } from '../core/tokens.ts';
import { CodeGraphEngine } from '../plugins/graph/engine/engine.ts';
import { serveStoredGraph } from './bench-host.ts';

const EXCLUDE = ['site-packages/**'];
/** A layer manifest for the xray verbs (the stdlib has none): network above formats above the base. */
const LAYERS = { layers: [{ name: 'net', paths: ['http/**', 'urllib/**', 'xmlrpc/**'] }, { name: 'formats', paths: ['email/**', 'json/**', 'xml/**'] }, { name: 'base', paths: ['collections/**', 'importlib/**', 'encodings/**'] }] };
type Args = Record<string, unknown>;
/** Each key's latest answer (parsed JSON), for the args functions of later keys. */
type Answers = Record<string, any>;
/** An args function: from earlier answers and the workspace root. */
type ArgsOf = (last: Answers, root: string) => Args;
const ARGS: Record<string, Args | ArgsOf> = {
  seek: { query: 'parse an email header' },
  scan_all: { time_budget_ms: 100_000 },
  twins: { time_budget_ms: 100_000 },
  layers: {},
  taint_trace: {},
  // Heavier whole-graph verbs (pick them with --verbs).
  audit: { time_budget_ms: 100_000 },
  refactor_plan: {},
  flow_simulate: {},
  panoramic: {},
  antibody_scan: {},
  metrics: {},
  cross_verify: {},
  health: {},
  diagram: {},
  missing: { query: 'email header parsing' },
  activate: { query: 'decode a quoted-printable email body' },
  hypothesize: { claim: 'file:email/parser.py depends on file:email/feedparser.py' },
  impact: { node_id: 'file:email/message.py' },
  why: { source: 'file:email/parser.py', target: 'file:email/message.py' },
  counterfactual: { node_ids: ['file:email/feedparser.py'], include_cascade: true },
  epidemic: { infected_nodes: ['file:email/message.py'] },
  focus: { goal: 'how a MIME message is parsed into parts' },
  search: { query: 'def parse' },
  glob: { pattern: '**/*.py' },
  orient: { task: 'fix header folding in the email package' },
  north: { task: 'fix header folding in the email package' },
  view: { file_path: 'email/message.py' },
  surgical_context: { file_path: 'email/feedparser.py' },
  batch_view: { files: ['email/message.py', 'email/parser.py', 'email/feedparser.py'] },
  heuristics_surface: { node_id: 'file:email/message.py' },
  fingerprint: {},
  doctor: {},
  report: {},
  resonate: { query: 'header folding' },
  external_references: {},
  am_i_stale: {},
  drift: { since: 'last_session' },
  layer_inspect: { level: 0 },
  // More read verbs that walk the graph (stop 47's sweep).
  predict: { changed_node: 'file:email/message.py' },
  trace: { error_text: 'Traceback (most recent call last):\n  File "email/feedparser.py", line 200, in _parsegen\n  File "email/message.py", line 300, in get_payload\nKeyError: x' },
  validate_plan: { actions: [{ action_type: 'modify', file_path: 'email/message.py' }, { action_type: 'modify', file_path: 'email/feedparser.py' }] },
  type_trace: { target: 'file:email/message.py' },
  xray_orient: { manifest: LAYERS },
  xray_paint: { manifest: LAYERS },
  perspective_start: { query: 'how a MIME message is parsed into parts' },
  scan: { pattern: 'error_handling' },
  warmup: { task_description: 'fix header folding in the email package' },
  learn: { query: 'header folding', feedback: 'correct', node_ids: ['file:email/_header_value_parser.py'] },
  coverage_session: {},
  document_bindings: { path: 'LICENSE.txt' },
  lock_create: { scope: 'subgraph', root_nodes: ['file:email/message.py'], radius: 2 },
  ghost_edges: {},
  // Error paths agents meet often: a node id with a typo (the did-you-mean scan over every label).
  'impact?typo': { node_id: 'email/mesage.py' },
  'why?typo': { source: 'email/parser.py#Parser.parsestr', target: 'HeaderParsr' },
  'type_trace?typo': { target: 'BytesFeedParsr' },
  // seek with a mistyped identifier: the near names lead (a paced scan over every label).
  'seek?typo': { query: 'HeaderParsr.parsestr' },
  // Every other registered verb, in an order where each one's ids exist; an args
  // function reads the answers of earlier calls (`last[key]`: the key's latest parsed result).
  // Not here: apply, apply_batch, edit_commit and the xray commits (they write the stdlib's files),
  // store_import (a team store); the history verbs need a git history (GIT_ARGS, --git).
  document_provider_health: {},
  document_resolve: { path: 'LICENSE.txt' },
  document_drift: {},
  federate_auto: {},
  federation_view: { view: 'workspace' },
  'persist?status': { action: 'status' },
  persist: { action: 'checkpoint', path: 'bench-stretches' },
  differential: { snapshot_a: 'checkpoint:bench-stretches', snapshot_b: 'current' },
  help: {},
  'help?tool': { tool_name: 'seek' },
  'help?route': { intent: 'find who calls the header parser' },
  recovery_playbook: {},
  session_handshake: { observed_tool_count: 124 },
  trust_selftest: {},
  perspective_routes: (last) => ({ perspective_id: last.perspective_start.perspective_id }),
  perspective_inspect: (last) => ({ perspective_id: last.perspective_start.perspective_id, route_index: 1, route_set_version: last.perspective_routes.route_set_version }),
  perspective_peek: (last) => ({ perspective_id: last.perspective_start.perspective_id, route_index: 1, route_set_version: last.perspective_routes.route_set_version }),
  perspective_suggest: (last) => ({ perspective_id: last.perspective_start.perspective_id, route_set_version: last.perspective_routes.route_set_version }),
  perspective_affinity: (last) => ({ perspective_id: last.perspective_start.perspective_id, route_index: 1, route_set_version: last.perspective_routes.route_set_version }),
  perspective_branch: (last) => ({ perspective_id: last.perspective_start.perspective_id, branch_name: 'side' }),
  perspective_follow: (last) => ({ perspective_id: last.perspective_start.perspective_id, route_index: 1, route_set_version: last.perspective_routes.route_set_version }),
  perspective_back: (last) => ({ perspective_id: last.perspective_start.perspective_id }),
  perspective_compare: (last) => ({ perspective_id_a: last.perspective_start.perspective_id, perspective_id_b: last.perspective_branch.perspective_id ?? last.perspective_branch.branch_perspective_id ?? last.perspective_branch.branch_id }),
  perspective_list: {},
  perspective_close: (last) => ({ perspective_id: last.perspective_start.perspective_id }),
  runtime_overlay: { spans: otlpSpans(), scope: 'agent' },
  trail_save: { label: 'header folding', visited_nodes: ['file:email/message.py', 'file:email/_header_value_parser.py', 'file:email/feedparser.py'], hypotheses: ['folding happens in the policy'] },
  'trail_save?second': { label: 'mime parsing', visited_nodes: ['file:email/parser.py', 'file:email/feedparser.py'] },
  trail_list: {},
  trail_resume: (last) => ({ trail_id: last.trail_save.trail_id }),
  trail_merge: (last) => ({ trail_ids: [last.trail_save.trail_id, last['trail_save?second'].trail_id] }),
  lock_watch: (last) => ({ lock_id: last.lock_create.lock_id, strategy: 'manual' }),
  lock_diff: (last) => ({ lock_id: last.lock_create.lock_id }),
  lock_rebase: (last) => ({ lock_id: last.lock_create.lock_id }),
  lock_release: (last) => ({ lock_id: last.lock_create.lock_id }),
  surgical_context_v2: { file_path: 'email/feedparser.py' },
  edit_preview: { file_path: 'email/message.py', hunks: [{ old_text: 'Basic message object for the email package', new_text: 'Basic message object of the email package' }] },
  memorize: { claims: [{ text: 'Message.get_payload decodes quoted-printable bodies', evidence: ['email/message.py'] }] },
  promote: (last) => ({ brain: 'team', claim: last.memorize.stored?.[0]?.id ?? last.memorize.duplicates?.[0]?.existing?.id, reason: 'checked' }),
  boot_memory: { action: 'list' },
  mission_start: { repo: 'cpython-stdlib', task: 'fix header folding in the email package' },
  mission_event: (last) => ({ mission_id: last.mission_start.mission_id, event: { action: 'view', path: 'email/message.py' }, outcome: 'success' }),
  mission_next: (last) => ({ mission_id: last.mission_start.mission_id }),
  mission_verify: (last) => ({ mission_id: last.mission_start.mission_id, claim: 'Message.get_payload decodes bodies', evidence_refs: ['email/message.py'] }),
  mission_handoff: (last) => ({ mission_id: last.mission_start.mission_id }),
  mission_close: (last) => ({ mission_id: last.mission_start.mission_id, summary: 'done' }),
  delegate: { task: 'fix header folding in the email package' },
  debrief: (last) => ({ delegation_id: last.delegate.delegation_id, outcome: 'success', touched_paths: ['email/_header_value_parser.py'] }),
  'soul_read?none': {},
  'soul_check?none': {},
  antibody_list: {},
  antibody_create: { name: 'bench get_payload', pattern: { from_node: 'method:email/message.py#Message.get_payload' } },
  'antibody_scan?stored': {}, // with a stored antibody (antibody_scan above runs before there is one)
  'antibody_create?delete': (last) => ({ action: 'delete', antibody_id: last.antibody_create?.antibody.id ?? last.antibody_list.antibodies.find((x: { name: string }) => x.name === 'bench get_payload')?.id }),
  xray_gate: { node: 'email/message.py', planned_imports: ['http/client.py'], manifest: LAYERS },
  xray_ledger: {},
  xray_retag: { selector: { node_type: 'function' }, op: 'add', tags: ['bench'] },
  xray_apply: { selector: { path_prefix: 'email' }, transform: { kind: 'ensure_header_tag', tag: 'owned by the mail team' } },
  alerts_list: {},
  daemon_status: {},
  auto_ingest_status: {},
  // These change the graph or the store (MUTATING): both their rounds run after the other verbs'.
  federate: { repos: [{ name: 'mail', path: 'email' }, { name: 'json', path: 'json' }] },
  auto_ingest_start: { roots: ['distutils/tests'] },
  auto_ingest_tick: {},
  auto_ingest_stop: {},
  daemon_start: { watch_paths: ['email'], poll_interval_ms: 600_000 },
  daemon_tick: {},
  'alerts_ack?none': (last) => ({ alert_ids: (last.alerts_list?.alerts ?? []).slice(0, 5).map((a: { id: string }) => a.id).concat(['none']) }),
  daemon_stop: {},
  ingest: { path: '.', incremental: true },
};
/** The header xray_apply writes into the clone's bench files (one per run: the second round finds them carrying it, as the first commit left them). */
const XRAY_TAG = `bench run ${Date.now()}`;
/** The tag xray_retag adds to plugins/graph's nodes (one per run, as XRAY_TAG). */
const RETAG = `bench-${Date.now().toString(36)}`;
/**
 * With `--git DIR` (a clone with its history; the stdlib has none, so the history verbs refuse
 * there): the verbs that read git history, on DIR's graph, and the edit verbs (they write DIR's
 * files). Paths are this repository's (a clone of m1nd itself: `git clone /work/main DIR`).
 */
const GIT_ARGS: Record<string, Args | ArgsOf> = {
  predict: { changed_node: 'file:core/dispatch.ts' },
  ghost_edges: {},
  timeline: { node: 'plugins/graph/engine/engine.ts', depth: 'all' },
  tremor: { window: 'all' },
  trust: {},
  diverge: { baseline: 'HEAD~50' },
  panoramic: {},
  epidemic: { infected_nodes: ['file:core/dispatch.ts'] },
  heuristics_surface: { node_id: 'file:core/dispatch.ts' },
  hypothesize: { claim: 'file:core/dispatch.ts depends on file:core/shaping.ts' },
  calibrate_predict: {},
  differential: { snapshot_a: 'git:HEAD~20', snapshot_b: 'current' },
  'differential?refs': { snapshot_a: 'git:HEAD~40', snapshot_b: 'git:HEAD' },
  // The writes (this clone's files): proved by surgical_context first, each a new line at the end.
  'surgical_context?proof': { file_path: 'core/log.ts' },
  'surgical_context?proof2': { file_path: 'core/errors.ts' },
  apply: (_, root) => ({ file_path: 'core/log.ts', new_content: `${readFileSync(join(root, 'core/log.ts'), 'utf8')}// bench ${Date.now()}\n` }),
  edit_preview: (_, root) => ({ file_path: 'core/log.ts', new_content: `${readFileSync(join(root, 'core/log.ts'), 'utf8')}// bench preview ${Date.now()}\n` }),
  edit_commit: (last) => ({ preview_id: last.edit_preview.preview_id, confirm: true }),
  apply_batch: (_, root) => ({ edits: ['core/log.ts', 'core/errors.ts'].map((f) => ({ file_path: f, new_content: `${readFileSync(join(root, f), 'utf8')}// bench batch ${Date.now()}\n` })) }),
  'xray_retag?dry': { selector: { path_prefix: 'plugins/graph' }, op: 'add', tags: [RETAG] },
  xray_retag: (last) => ({ selector: { path_prefix: 'plugins/graph' }, op: 'add', tags: [RETAG], mode: 'commit', expect_version: last['xray_retag?dry'].tags_version }),
  'xray_apply?dry': { selector: { path_prefix: 'bench' }, transform: { kind: 'ensure_header_tag', tag: XRAY_TAG } },
  xray_apply: (last) => ({ selector: { path_prefix: 'bench' }, transform: { kind: 'ensure_header_tag', tag: XRAY_TAG }, mode: 'commit', expect_version: last['xray_apply?dry'].plan_version }),
};
/** Keys whose calls change the graph or start watchers: both their rounds run after every other key's, so those stay warm. */
const MUTATING = new Set([
  ...['federate', 'auto_ingest_start', 'auto_ingest_tick', 'auto_ingest_stop', 'daemon_start', 'daemon_tick', 'alerts_ack?none', 'daemon_stop', 'ingest'],
  ...['surgical_context?proof', 'surgical_context?proof2', 'apply', 'edit_preview', 'edit_commit', 'apply_batch', 'xray_retag?dry', 'xray_retag', 'xray_apply?dry', 'xray_apply'],
]);

/** OTLP JSON: 400 spans over email's functions (code.function + code.filepath), as a collector's file exporter writes them. */
function otlpSpans(): unknown[] {
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const fns = [['get_payload', 'email/message.py'], ['parsestr', 'email/parser.py'], ['feed', 'email/feedparser.py'], ['fold', 'email/_header_value_parser.py'], ['decode_header', 'email/header.py']];
  const spans = Array.from({ length: 400 }, (_, i) => {
    const [fn, file] = fns[i % fns.length];
    return { name: fn, startTimeUnixNano: '0', endTimeUnixNano: String((1 + (i % 17)) * 1_000_000), attributes: [str('code.function', fn), str('code.filepath', file)], status: i % 23 === 0 ? { code: 2 } : {} };
  });
  return [{ resourceSpans: [{ resource: { attributes: [str('service.name', 'mail')] }, scopeSpans: [{ spans }] }] }];
}
/** `verb?case` names a second argument set for `verb` (an error path or a slip; an error there is expected). */
const verbOf = (key: string): string => key.split('?')[0];
/** The verbs run when --verbs is not given. */
const DEFAULT_VERBS = ['seek', 'scan_all', 'twins', 'layers', 'taint_trace'];
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const threadMs = (): number => (existsSync(schedstat) ? Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : performance.now());
const us = (): number => Number(process.hrtime.bigint() / 1000n);

export async function run(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const gitRoot = opt('--git');
  const root = gitRoot ?? execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const exclude = gitRoot ? [] : EXCLUDE;
  const table = gitRoot ? GIT_ARGS : ARGS;
  const store = opt('--store') ?? mkdtempSync(join(tmpdir(), 'm1nd-stretch-bench-'));
  if (!existsSync(join(store, 'm1nd.db'))) {
    const engine = new CodeGraphEngine({ root, storeDir: store, exclude });
    await engine.open();
    await engine.ingest();
    await engine.close();
  }
  useTokenizerCache(cacheDir(process.env)); // as `m1nd serve` does
  const picked = opt('--verbs');
  const verbs = picked === 'all' || (!picked && gitRoot) ? Object.keys(table) : (picked ?? DEFAULT_VERBS.join(',')).split(',');
  const { host, call } = await serveStoredGraph(root, store, exclude, {}, { structure: { backgroundFacts: false } });
  await call('metrics', { top_k: 1 }); // the graph loaded
  const prof = opt('--prof');
  const session = new Session();
  if (prof) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 250 });
    await session.post('Profiler.start');
  }
  const gaps: { start: number; end: number; cpu: number; verb: string }[] = [];
  const last: Answers = {};
  console.log(`verb stretches: ${root}, store ${store}; background facts job off`);
  /** Calls `verb` with a 1 ms timer beside it: the wall time and the main-thread stretches between ticks, longest first. */
  const measure = async (key: string, label: string): Promise<{ ms: number; stretches: number[]; error?: string } | Error> => {
    let running = true;
    const stretches: number[] = [];
    const ticker = (async () => {
      for (let c = threadMs(), w = us(); running; ) {
        await new Promise((r) => setTimeout(r, 1));
        const now = threadMs();
        const wNow = us();
        stretches.push(now - c);
        if (now - c > 20) gaps.push({ start: w, end: wNow, cpu: now - c, verb: label });
        c = now;
        w = wNow;
      }
    })();
    let outcome: unknown;
    const given = table[key] ?? {};
    let args: Args | Error;
    try {
      args = typeof given === 'function' ? given(last, root) : given;
    } catch (error) {
      args = new Error(`no arguments: an earlier call's answer is missing (${(error as Error).message})`);
    }
    const t = performance.now();
    try {
      if (args instanceof Error) throw args;
      const r = await host.call(verbOf(key), { agent_id: 'bench', ...args });
      const text = (r.content as { text?: string }[])[0]?.text ?? '';
      if (r.isError) throw new Error(`${verbOf(key)} failed: ${text}`);
      outcome = text;
    } catch (error) {
      outcome = error as Error;
    }
    const ms = performance.now() - t;
    if (typeof outcome === 'string') {
      try {
        last[key] = JSON.parse(outcome);
      } catch {
        last[key] = outcome; // Markdown (audit, help)
      }
    }
    running = false;
    await ticker; // its last tick measures the call's last stretch
    const expectedError = key.includes('?');
    if (outcome instanceof Error && !expectedError) return outcome;
    return { ms, stretches: stretches.sort((a, b) => b - a), ...(outcome instanceof Error ? { error: outcome.message.slice(0, 160) } : {}) };
  };
  // The baseline, same run and same timer: a trivial verb's longest stretch (the measure's floor).
  let floor = 0;
  for (let k = 0; k < 5; k++) {
    const r = await measure('health', 'health');
    if (!(r instanceof Error)) floor = Math.max(floor, r.stretches[0] ?? 0);
  }
  console.log(`verb stretches: baseline, health × 5: longest main-thread stretch ${floor.toFixed(1)} ms`);
  // Two rounds of the verbs that leave the graph as it is, then two of those that change it.
  const batches = [verbs.filter((v) => !MUTATING.has(v)), verbs.filter((v) => MUTATING.has(v))];
  for (const [batch, round] of batches.flatMap((b) => [1, 2].map((round) => [b, round] as const))) {
    for (const verb of batch) {
      const r = await measure(verb, `${verb}#${round}`);
      if (r instanceof Error) {
        console.log(`verb stretches: ${verb} call ${round}: ${r.message.slice(0, 300)}`);
        continue;
      }
      const { ms, stretches, error } = r;
      if (error) console.log(`verb stretches: ${verb} call ${round} failed as expected: ${error}`);
      console.log(`verb stretches: ${verb} call ${round}: ${ms.toFixed(0)} ms wall; longest main-thread stretches ${stretches.slice(0, 3).map((x) => x.toFixed(1)).join(', ')} ms (${((stretches[0] ?? 0) / Math.max(floor, 1)).toFixed(1)}× the baseline's); ${stretches.filter((x) => x > 20).length} over 20 ms, ${stretches.filter((x) => x > 50).length} over 50 ms (target: none over ~50)`);
    }
  }
  if (prof) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(prof, 'verbs.cpuprofile'), JSON.stringify(profile));
    writeFileSync(join(prof, 'verbs.gaps.json'), JSON.stringify(gaps));
  }
  await host.close();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
  process.exit(0);
}
