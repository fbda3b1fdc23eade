/**
 * `verify` after a batch: a compile check chosen by project type from a fixed table (a marker file
 * at the workspace root decides). Commands come from this table or from the edit plugin's options
 * in m1nd.config.ts — never from an agent's arguments. Each runs with a timeout, reports progress
 * and stops on cancellation.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
 * Runs the checks that apply to the workspace (config overrides replace a project's command),
 * one after another, reporting progress; skips the rest once cancelled.
 */
export async function verifyWorkspace(
  root: string,
  changed: readonly string[],
  options: { overrides: Record<string, VerifyCommand>; timeoutMs: number; signal: AbortSignal; progress: (done: number, total: number, message: string) => void },
): Promise<{ ok: boolean; runs: VerifyRun[]; note?: string }> {
  const plan = VERIFY_TABLE.flatMap((rule) => {
    if (rule.marker && !existsSync(join(root, rule.marker))) return [];
    const cmd = options.overrides[rule.project] ?? rule.check(root, changed);
    return cmd ? [{ project: rule.project, cmd }] : [];
  });
  if (plan.length === 0) return { ok: true, runs: [], note: 'no project type with a compile check was found at the workspace root' };
  const runs: VerifyRun[] = [];
  for (const [i, step] of plan.entries()) {
    if (options.signal.aborted) break;
    options.progress(i, plan.length, `verify: ${step.project}`);
    runs.push({ project: step.project, ...(await run(step.cmd, root, options.timeoutMs, options.signal)) });
  }
  options.progress(plan.length, plan.length, 'verify: done');
  return { ok: runs.length === plan.length && runs.every((r) => r.ok), runs };
}
