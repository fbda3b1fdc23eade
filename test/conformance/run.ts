/**
 * Runs the official MCP conformance server suite (@modelcontextprotocol/conformance, pinned 0.1.13)
 * against m1nd with its built-in plugins, served over Streamable HTTP on an ephemeral port, and
 * compares the outcome with expected-failures.json. Run: node --import tsx/esm test/conformance/run.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import { startHost } from '../../core/index.ts';
import { serveHttp } from '../../core/http.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';
import fixtures from './fixture-plugin.ts';

/** Scenarios for capabilities m1nd declares (tools, logging, resources, prompts, completions) and for its transport: never expected to fail. */
export const REQUIRED_SCENARIOS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'json-schema-2020-12',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'completion-complete',
];

const HERE = path.dirname(fileURLToPath(import.meta.url));
/**
 * Scenario name → why m1nd is expected to fail it: a reason, or `{ reason, versions }` when only
 * suite versions in that semver range are expected to fail it (a harness bug fixed upstream).
 */
export const EXPECTED_FAILURES_FILE = path.join(HERE, 'expected-failures.json');

/** pass: clean; fail: an unexpected failure; expected-failure: failed as listed; unexpected-pass: listed but passed (stale list). */
export type Outcome = 'pass' | 'fail' | 'expected-failure' | 'unexpected-pass';

/** One scenario's result, reduced from the CLI's checks.json. */
export interface ScenarioResult {
  scenario: string;
  outcome: Outcome;
  passed: number;
  failed: number;
  warnings: number;
  /** The reason from expected-failures.json, when listed. */
  reason?: string;
  /** Messages of the failed and warning checks. */
  errors: string[];
}

/** The whole run: per-scenario results plus problems with the expectations file itself. */
export interface ConformanceReport {
  url: string;
  results: ScenarioResult[];
  /** Entries of expected-failures.json that are no scenario, or are required ones. */
  listProblems: string[];
  ok: boolean;
  elapsedMs: number;
  /** The CLI's own stdout and stderr, for diagnosing a failure. */
  output: string;
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

/** Where the conformance CLI lives; throws when the devDependency is not installed. */
export function conformanceCli(): string {
  const pkg = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json');
  const bin = JSON.parse(fs.readFileSync(pkg, 'utf8')).bin.conformance as string;
  return path.join(path.dirname(pkg), bin);
}

/** Which conformance CLI runs, under which Node (default: the pinned devDependency under this Node). */
export interface ConformanceOptions {
  timeoutMs?: number;
  /** The CLI's entry file (e.g. a newer version installed elsewhere). */
  cli?: string;
  /** The Node binary that runs the CLI (the server stays in this process). */
  node?: string;
  /** Extra arguments for both `list --server` and `server` (e.g. `--spec-version 2025-11-25`). */
  args?: string[];
}

/** The version of the conformance package whose CLI entry is `cli`. */
export function suiteVersion(cli: string): string {
  for (let dir = path.dirname(cli); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === '@modelcontextprotocol/conformance' && pkg.version) return pkg.version;
  }
  throw new Error(`no @modelcontextprotocol/conformance package.json above ${cli}`);
}

/** Starts a host over serveHttp, runs every server scenario against it, and judges the results. */
export async function runConformance(options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const started = performance.now();
  const cli = options.cli ?? conformanceCli();
  const node = options.node ?? process.execPath;
  const expected = readExpectedFailures(suiteVersion(cli));
  const extra = options.args ?? [];
  // The built-in plugins plus the suite's fixture resources and prompts, registered as a user plugin would.
  const workspace = tempDir('m1nd-conformance-');
  const host = await startHost({ workspaceRoot: workspace, env: {}, log: memoryLogger(), extraSources: [{ definition: fixtures }] });
  const served = await serveHttp(host, { port: 0, log: memoryLogger() });
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-conformance-out-'));
  try {
    const scenarios = parseScenarioList((await runCli(node, cli, ['list', '--server', ...extra], options.timeoutMs)).output);
    // One CLI process for the whole suite: "all" includes the pending scenarios, judged by the same list.
    const run = await runCli(node, cli, ['server', '--url', served.url, '--suite', 'all', ...extra, '-o', outDir], options.timeoutMs);
    const checks = readChecks(outDir);
    const results = scenarios.map((scenario) => judge(scenario, checks.get(scenario), expected[scenario]));
    const listProblems = [
      ...Object.keys(expected).filter((s) => !scenarios.includes(s)).map((s) => `expected-failures.json lists "${s}", which is no server scenario`),
      ...Object.keys(expected).filter((s) => REQUIRED_SCENARIOS.includes(s)).map((s) => `expected-failures.json lists "${s}", which m1nd must pass`),
    ];
    if (run.timedOut) listProblems.push(`the conformance CLI did not finish within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`);
    const ok = listProblems.length === 0 && results.every((r) => r.outcome === 'pass' || r.outcome === 'expected-failure');
    return { url: served.url, results, listProblems, ok, elapsedMs: performance.now() - started, output: run.output };
  } finally {
    await served.close();
    await host.close();
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

/** A fixed-width table of the results, then the verdict. */
export function formatSummary(report: ConformanceReport): string {
  const width = Math.max(...report.results.map((r) => r.scenario.length), 'scenario'.length);
  const rows = report.results.map((r) => {
    const counts = `${r.passed}/${r.passed + r.failed}${r.warnings ? ` ${r.warnings}w` : ''}`;
    const note = r.outcome === 'expected-failure' || r.outcome === 'unexpected-pass' ? r.reason ?? '' : r.errors.join('; ');
    return `${r.scenario.padEnd(width)}  ${r.outcome.padEnd(16)}  ${counts.padEnd(7)}  ${note}`;
  });
  const tally = (o: Outcome) => report.results.filter((r) => r.outcome === o).length;
  return [
    `MCP conformance (server suite) against ${report.url}`,
    `${'scenario'.padEnd(width)}  ${'result'.padEnd(16)}  ${'checks'.padEnd(7)}  note`,
    ...rows,
    '',
    `${tally('pass')} passed, ${tally('expected-failure')} expected failures, ${tally('fail')} unexpected failures, ${tally('unexpected-pass')} unexpected passes (${(report.elapsedMs / 1000).toFixed(1)} s)`,
    ...report.listProblems.map((p) => `problem: ${p}`),
    report.ok ? 'OK' : 'FAILED',
  ].join('\n');
}

const DEFAULT_TIMEOUT_MS = 120_000;
/** The newest conformance suite seen to run (under Node 22); `npm run conformance -- --latest`. */
export const LATEST_SUITE = '0.1.16';
/**
 * The newest prerelease, run by `--latest` too, at the spec version m1nd's SDK negotiates: it has
 * the upstream fix for server-sse-polling's protocol-version header (conformance PR #366).
 */
export const NEXT_SUITE = '0.2.0-alpha.12';
export const NEXT_SUITE_ARGS = ['--spec-version', '2025-11-25'];

/** The expected failures that apply to this suite version (entries scoped by a `versions` range may not). */
function readExpectedFailures(version: string): Record<string, string> {
  const raw = JSON.parse(fs.readFileSync(EXPECTED_FAILURES_FILE, 'utf8')) as Record<string, string | { reason: string; versions: string }>;
  const out: Record<string, string> = {};
  for (const [scenario, entry] of Object.entries(raw)) {
    if (typeof entry === 'string') out[scenario] = entry;
    else if (semver.satisfies(version, entry.versions, { includePrerelease: true })) out[scenario] = `${entry.reason} (suite ${version} is in ${entry.versions})`;
  }
  return out;
}

/** A scenario fails on any FAILURE or WARNING check, as the CLI's own baseline mode judges it. */
function judge(scenario: string, checks: Check[] | undefined, reason: string | undefined): ScenarioResult {
  const list = checks ?? [{ id: scenario, status: 'FAILURE', errorMessage: 'no result: the scenario did not run to completion' }];
  const failed = list.filter((c) => c.status === 'FAILURE').length;
  const warnings = list.filter((c) => c.status === 'WARNING').length;
  const passed = list.filter((c) => c.status === 'SUCCESS').length;
  const failing = failed > 0 || warnings > 0;
  const outcome: Outcome = reason === undefined ? (failing ? 'fail' : 'pass') : failing ? 'expected-failure' : 'unexpected-pass';
  const errors = list.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);
  return { scenario, outcome, passed, failed, warnings, reason, errors };
}

/** The CLI writes <outDir>/server-<scenario>-<ISO timestamp with : and . replaced>/checks.json. */
function readChecks(outDir: string): Map<string, Check[]> {
  const byScenario = new Map<string, Check[]>();
  for (const dir of fs.readdirSync(outDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir);
    const file = path.join(outDir, dir, 'checks.json');
    if (match && fs.existsSync(file)) byScenario.set(match[1], JSON.parse(fs.readFileSync(file, 'utf8')) as Check[]);
  }
  return byScenario;
}

function parseScenarioList(output: string): string[] {
  // `  - name` (0.1.13) or `  - name [spec versions]` (0.1.16).
  const names = [...output.matchAll(/^\s+-\s+(\S+)(?:\s+\[[^\]]*\])?\s*$/gm)].map((m) => m[1]);
  if (names.length === 0) throw new Error(`conformance list --server printed no scenarios:\n${output}`);
  return names;
}

/** Runs the CLI without blocking the event loop: the server under test lives in this process. */
function runCli(node: string, cli: string, args: string[], timeoutMs = DEFAULT_TIMEOUT_MS): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill();
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  // `npm run conformance`: the pinned suite under this Node; with --latest, also the newest suite
  // known to run (it needs Node 22), both installed from the npm registry into a cache folder.
  const runs: { label: string; options: ConformanceOptions }[] = [{ label: `@modelcontextprotocol/conformance (pinned) under Node ${process.versions.node}`, options: {} }];
  if (process.argv.includes('--latest')) {
    const { node22, packageBin } = await import('./node22.ts');
    const node = await node22();
    runs.push({ label: `@modelcontextprotocol/conformance@${LATEST_SUITE} under Node 22`, options: { node, cli: await packageBin(`@modelcontextprotocol/conformance@${LATEST_SUITE}`, 'conformance') } });
    runs.push({
      label: `@modelcontextprotocol/conformance@${NEXT_SUITE} ${NEXT_SUITE_ARGS.join(' ')} under Node 22`,
      options: { node, cli: await packageBin(`@modelcontextprotocol/conformance@${NEXT_SUITE}`, 'conformance'), args: NEXT_SUITE_ARGS },
    });
  }
  let ok = true;
  for (const r of runs) {
    const report = await runConformance(r.options);
    process.stdout.write(`${r.label}\n${formatSummary(report)}\n\n`);
    if (!report.ok && process.env.M1ND_CONFORMANCE_VERBOSE) process.stdout.write(`\n${report.output}\n`);
    ok &&= report.ok;
  }
  process.exit(ok ? 0 : 1);
}
