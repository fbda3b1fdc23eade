/**
 * The git CLI in a child process, with bounded output: history verbs never load libgit into the
 * server and never let one `git log` fill memory. A missing repository or git binary is a coded
 * error saying so plainly (never an empty history passed off as "no changes").
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { findGitDir } from '../graph/api.ts';

/** Options of one git run. */
export interface GitRunOptions {
  /** Output bytes kept before git is stopped (default 8 MiB). */
  maxBytes?: number;
  timeoutMs?: number;
  /** Receives stdout as it arrives (streaming parsers); the result's stdout is then empty. */
  onData?: (chunk: string) => void;
  signal?: AbortSignal;
}

/** What one git run gave. */
export interface GitRunResult {
  stdout: string;
  code: number | null;
  stderr: string;
  /** True when the output cap stopped git early. */
  truncated: boolean;
}

/** Runs `git <args>` in `cwd`; never throws for a non-zero exit (callers read `code`), only for a missing git binary. */
export function runGit(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<GitRunResult> {
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', ['-c', 'core.quotepath=off', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: options.signal });
    let bytes = 0;
    let truncated = false;
    const out: string[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (truncated) return;
      bytes += Buffer.byteLength(chunk);
      if (bytes > maxBytes) {
        truncated = true;
        child.kill('SIGKILL');
        return;
      }
      if (options.onData) options.onData(chunk);
      else out.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (err.length < 4096) err += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT') {
        reject(new M1ndError(ErrorCodes.HISTORY_NO_GIT, 'the git command is not installed on this machine, so there is no history to read', { hint: 'install git, or use verbs that need no history (impact, why, counterfactual)' }));
      } else reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ stdout: out.join(''), code: truncated ? 0 : code, stderr: err, truncated });
    });
  });
}

/** The repository facts a history verb needs before it reads anything. */
export interface RepoInfo {
  gitDir: string;
  /** The directory holding refs and objects (differs from gitDir in a linked worktree). */
  commonDir: string;
  /** True in a shallow clone: history before the graft point is missing. */
  shallow: boolean;
  /** True in a partial (blobless) clone: reading file contents may fetch from the remote. */
  partial: boolean;
}

/** The workspace's repository, or HISTORY_NO_GIT saying plainly that there is none. */
export function requireRepo(root: string): RepoInfo {
  const gitDir = findGitDir(root);
  if (!gitDir) {
    throw new M1ndError(ErrorCodes.HISTORY_NO_GIT, `${root} is not inside a git repository: there is no history to read`, {
      hint: 'run `git init` and commit to get history, or use verbs that need no history (impact, why, counterfactual)',
    });
  }
  const commonFile = join(gitDir, 'commondir');
  const commonDir = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir;
  let partial = false;
  try {
    partial = /^\s*(promisor\s*=\s*true|partialclone\s*=)/im.test(readFileSync(join(commonDir, 'config'), 'utf8'));
  } catch {
    // no readable config: not a partial clone as far as we can tell
  }
  return { gitDir, commonDir, shallow: existsSync(join(commonDir, 'shallow')) || existsSync(join(gitDir, 'shallow')), partial };
}

const prefixes = new Map<string, string>();

/**
 * Where `root` sits inside its repository (`git rev-parse --show-prefix`: "" at the top, else
 * "sub/dir/"), asked once per root and process: every spawn of git holds the main thread for a few
 * milliseconds (fork and exec), and a workspace does not move inside its repository.
 */
export async function repoPrefix(root: string): Promise<string> {
  const known = prefixes.get(root);
  if (known !== undefined) return known;
  const r = await runGit(root, ['rev-parse', '--show-prefix'], { maxBytes: 4096 });
  const prefix = r.stdout.trim();
  if (r.code === 0) prefixes.set(root, prefix);
  return prefix;
}

/** Why a repository gives `root` no history, and the next valid move. */
export interface NoHistory {
  message: string;
  hint: string;
}

/**
 * Tells apart the two ways a repository (requireRepo passed) yields no commit for `root`: HEAD is
 * unborn (no commit at all), or the repository has commits and none of them touches the served
 * folder (`root` is a sub-folder whose files were never committed). `head` is the mined HEAD.
 */
export async function noHistory(root: string, head: string | null): Promise<NoHistory> {
  const prefix = await repoPrefix(root);
  const top = prefix ? resolve(root, ...prefix.split('/').filter(Boolean).map(() => '..')) : root;
  if (!head) {
    return {
      message: `the repository at ${top}${prefix ? ` (serving its folder ${prefix})` : ''} has no commits yet: there is no history to read`,
      hint: 'commit your work first (git add, git commit), or use verbs that need no history (impact, why, counterfactual)',
    };
  }
  const at = `HEAD ${head.slice(0, 12)}`;
  if (prefix) {
    return {
      message: `the repository at ${top} has commits (${at}), but none of them touches the served folder ${prefix}: there is no history to read for it`,
      hint: `commit the folder's files (git add ${prefix} and git commit), or serve the repository root (--workspace ${top}), or use verbs that need no history (impact, why, counterfactual)`,
    };
  }
  return {
    message: `the repository at ${top} has commits (${at}), but none of them changes a file (merge or empty commits only): there is no history to read`,
    hint: 'commit changes to the files first, or use verbs that need no history (impact, why, counterfactual)',
  };
}

/** The commit a ref or date-free revision names, or HISTORY_BAD_REF. */
export async function resolveRef(root: string, ref: string): Promise<string> {
  if (ref.startsWith('-')) throw new M1ndError(ErrorCodes.HISTORY_BAD_REF, `"${ref}" is not a git ref`, { hint: 'give a branch, tag or commit hash (e.g. "main", "v1.2", "HEAD~3")' });
  const r = await runGit(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { maxBytes: 4096, timeoutMs: 10_000 });
  const sha = r.stdout.trim();
  if (r.code !== 0 || !/^[0-9a-f]{40,64}$/.test(sha)) {
    throw new M1ndError(ErrorCodes.HISTORY_BAD_REF, `"${ref}" names no commit in this repository`, { hint: 'give a branch, tag or commit hash that `git log` shows (e.g. "HEAD~3")' });
  }
  return sha;
}
