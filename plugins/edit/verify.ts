/**
 * `verify` after a batch: a compile check chosen by project type from a fixed table (a marker file
 * at the workspace root decides). Commands come from this table or from the edit plugin's options
 * in m1nd.config.ts — never from an agent's arguments. Each runs with a timeout, reports progress
 * and stops on cancellation.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** A compile check: the program and its arguments, run in the workspace root. */
export interface VerifyCommand {
  command: string;
  args: string[];
}

/** One project type: the root file that marks it, and its check. */
interface VerifyRule {
  project: string;
  marker: string;
  check: (root: string, changed: readonly string[]) => VerifyCommand | null;
}

/** The TypeScript compiler: the workspace's own when installed, else the one m1nd ships with. */
function tscPath(root: string): string {
  const own = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return existsSync(own) ? own : createRequire(import.meta.url).resolve('typescript/bin/tsc');
}

/** The fixed table, in the order checks run. */
export const VERIFY_TABLE: readonly VerifyRule[] = [
  { project: 'typescript', marker: 'tsconfig.json', check: (root) => ({ command: process.execPath, args: [tscPath(root), '--noEmit', '-p', 'tsconfig.json'] }) },
  {
    project: 'python',
    marker: '',
    check: (_root, changed) => {
      const py = changed.filter((p) => p.endsWith('.py'));
      return py.length ? { command: 'python3', args: ['-m', 'py_compile', ...py] } : null;
    },
  },
  { project: 'go', marker: 'go.mod', check: () => ({ command: 'go', args: ['build', './...'] }) },
  { project: 'rust', marker: 'Cargo.toml', check: () => ({ command: 'cargo', args: ['check', '--quiet'] }) },
];

/** One project type's test run for given test files: the table's command, or null when it has none. */
interface TestRule {
  project: string;
  marker: string;
  command: (root: string, tests: readonly string[]) => VerifyCommand | null;
}

/** The dev dependencies of the workspace's package.json (empty when there is none or it does not parse). */
function devDependencies(root: string): Record<string, unknown> {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
    return { ...pkg.dependencies, ...pkg.devDependencies };
  } catch {
    return {};
  }
}

/**
 * The affected tests: the test files the graph's `tests` edges tie to the written code, run by the
 * project's own runner (pytest when the project configures it, else unittest; go test on their
 * packages; cargo test; vitest, jest or mocha from package.json). Only files, never flags, come from
 * the graph; config overrides (`<project>-tests`) replace the command and get the files appended.
 */
export const TEST_TABLE: readonly TestRule[] = [
  {
    project: 'python',
    marker: '',
    command: (root, tests) => {
      const py = tests.filter((t) => t.endsWith('.py'));
      if (!py.length) return null;
      const pytest = ['pytest.ini', 'conftest.py', 'tox.ini'].some((f) => existsSync(join(root, f))) || /\[tool\.pytest/.test(readIfExists(join(root, 'pyproject.toml')));
      return pytest ? { command: 'python3', args: ['-m', 'pytest', '-q', ...py] } : { command: 'python3', args: ['-m', 'unittest', ...py] };
    },
  },
  {
    project: 'go',
    marker: 'go.mod',
    command: (_root, tests) => {
      const dirs = [...new Set(tests.filter((t) => t.endsWith('_test.go')).map((t) => `./${t.includes('/') ? t.slice(0, t.lastIndexOf('/')) : '.'}`))];
      return dirs.length ? { command: 'go', args: ['test', ...dirs] } : null;
    },
  },
  { project: 'rust', marker: 'Cargo.toml', command: (_root, tests) => (tests.some((t) => t.endsWith('.rs')) ? { command: 'cargo', args: ['test', '--quiet'] } : null) },
  {
    project: 'javascript',
    marker: 'package.json',
    command: (root, tests) => {
      const js = tests.filter((t) => /\.[cm]?[jt]sx?$/.test(t));
      if (!js.length) return null;
      const deps = devDependencies(root);
      const bin = (name: string) => join(root, 'node_modules', '.bin', name);
      if ('vitest' in deps) return { command: bin('vitest'), args: ['run', ...js] };
      if ('jest' in deps) return { command: bin('jest'), args: js };
      if ('mocha' in deps) return { command: bin('mocha'), args: js };
      return null;
    },
  },
];

function readIfExists(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** One check's outcome. */
export interface VerifyRun {
  project: string;
  command: string;
  ok: boolean;
  exit_code: number | null;
  timed_out: boolean;
  cancelled: boolean;
  elapsed_ms: number;
  /** The end of its combined output (compilers print the errors that matter last). */
  output: string;
}

const OUTPUT_TAIL = 4000;

function run(cmd: VerifyCommand, root: string, timeoutMs: number, signal: AbortSignal): Promise<Omit<VerifyRun, 'project'>> {
  const started = Date.now();
  return new Promise((resolve) => {
    let out = '';
    let timedOut = false;
    const child = spawn(cmd.command, cmd.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString('utf8')).slice(-OUTPUT_TAIL * 4);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const stop = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    signal.addEventListener('abort', stop, { once: true });
    const finish = (code: number | null, error?: Error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      const text = error ? `${cmd.command}: ${error.message}` : out;
      resolve({ command: [cmd.command, ...cmd.args].join(' '), ok: !error && code === 0, exit_code: code, timed_out: timedOut, cancelled: signal.aborted, elapsed_ms: Date.now() - started, output: text.slice(-OUTPUT_TAIL) });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(code));
  });
}

/**
 * Runs the compile checks that apply to the workspace, then — when they pass — the affected tests
 * (`tests`: test files from the graph), one command after another, reporting progress; skips the
 * rest once cancelled. Config overrides replace a project's check (`<project>`) or test command
 * (`<project>-tests`, the test files appended).
 */
export async function verifyWorkspace(
  root: string,
  changed: readonly string[],
  options: { overrides: Record<string, VerifyCommand>; timeoutMs: number; signal: AbortSignal; progress: (done: number, total: number, message: string) => void; tests?: readonly string[] },
): Promise<{ ok: boolean; runs: VerifyRun[]; note?: string }> {
  const applies = (marker: string) => !marker || existsSync(join(root, marker));
  const checks = VERIFY_TABLE.flatMap((rule) => {
    if (!applies(rule.marker)) return [];
    const cmd = options.overrides[rule.project] ?? rule.check(root, changed);
    return cmd ? [{ project: rule.project, cmd }] : [];
  });
  const tests = options.tests ?? [];
  const testRuns = TEST_TABLE.flatMap((rule) => {
    if (!applies(rule.marker) || tests.length === 0) return [];
    const override = options.overrides[`${rule.project}-tests`];
    const table = rule.command(root, tests);
    const cmd = table && override ? { command: override.command, args: [...override.args, ...tests] } : table;
    return cmd ? [{ project: `${rule.project} tests`, cmd }] : [];
  });
  const plan = [...checks, ...testRuns];
  if (plan.length === 0) return { ok: true, runs: [], note: 'no project type with a compile check or a test runner was found at the workspace root' };
  const runs: VerifyRun[] = [];
  for (const [i, step] of plan.entries()) {
    if (options.signal.aborted) break;
    // Tests run only on code that compiles: a failed check already says what is wrong.
    if (i === checks.length && runs.some((r) => !r.ok)) break;
    options.progress(i, plan.length, `verify: ${step.project}`);
    runs.push({ project: step.project, ...(await run(step.cmd, root, options.timeoutMs, options.signal)) });
  }
  options.progress(plan.length, plan.length, 'verify: done');
  const skipped = plan.length - runs.length;
  return { ok: runs.length === plan.length && runs.every((r) => r.ok), runs, ...(skipped && !options.signal.aborted ? { note: `${skipped} test run(s) skipped: a compile check failed` } : {}) };
}
