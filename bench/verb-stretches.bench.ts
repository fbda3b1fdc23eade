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
 *   node --import tsx/esm bench/verb-stretches.bench.ts [--store DIR] [--verbs seek,scan_all,layers,twins,taint_trace] [--prof DIR]
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
const ARGS: Record<string, Record<string, unknown>> = {
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
  xray_orient: {},
  xray_paint: {},
  perspective_start: { query: 'how a MIME message is parsed into parts' },
  scan: { pattern: 'error_handling' },
  warmup: { task_description: 'fix header folding in the email package' },
  learn: { query: 'header folding', feedback: 'correct', node_ids: ['file:email/_header_value_parser.py'] },
  coverage_session: {},
  document_bindings: {},
  lock_create: { scope: 'subgraph', root_nodes: ['file:email/message.py'], radius: 2 },
  ghost_edges: {},
  // Error paths agents meet often: a node id with a typo (the did-you-mean scan over every label).
  'impact?typo': { node_id: 'email/mesage.py' },
  'why?typo': { source: 'email/parser.py#Parser.parsestr', target: 'HeaderParsr' },
  'type_trace?typo': { target: 'BytesFeedParsr' },
  // seek with a mistyped identifier: the near names lead (a paced scan over every label).
  'seek?typo': { query: 'HeaderParsr.parsestr' },
};
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
  const root = execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  const store = opt('--store') ?? mkdtempSync(join(tmpdir(), 'm1nd-stretch-bench-'));
  if (!existsSync(join(store, 'm1nd.db'))) {
    const engine = new CodeGraphEngine({ root, storeDir: store, exclude: EXCLUDE });
    await engine.open();
    await engine.ingest();
    await engine.close();
  }
  useTokenizerCache(cacheDir(process.env)); // as `m1nd serve` does
  const picked = opt('--verbs');
  const verbs = picked === 'all' ? Object.keys(ARGS) : (picked ?? DEFAULT_VERBS.join(',')).split(',');
  const { host, call } = await serveStoredGraph(root, store, EXCLUDE, {}, { structure: { backgroundFacts: false } });
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
    let outcome: number | Error;
    const t = performance.now();
    try {
      outcome = await call(verbOf(key), ARGS[key] ?? {});
    } catch (error) {
      outcome = error as Error;
    }
    const ms = performance.now() - t;
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
  for (const round of [1, 2]) {
    for (const verb of verbs) {
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
