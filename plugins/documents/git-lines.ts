/**
 * What git says changed in the code since a document was last committed: for drift without a
 * baseline, a target is stale when lines of it changed since then (`git diff -U0 <commit> -- file`,
 * the working tree included), not merely because its file has a later commit (a formatter run or an
 * `__all__` added above a class leaves the class as the document saw it). Git runs in a child process,
 * bounded in time and output; no repository, an untracked or locally edited document, or a file git
 * cannot compare answers null (the caller falls back to commit or modification times).
 */
import { execFile } from 'node:child_process';

/** Line ranges (1-based, inclusive, in the file as it is now) changed since the document's commit. */
export type ChangedLines = [number, number][];

export interface DocumentCommit {
  /** Unix seconds of the document's last commit. */
  at: number;
  /** The lines of a workspace file changed since that commit; null when git cannot say. */
  changed(path: string): Promise<ChangedLines | null>;
}

/** Files compared per document at most (past them, the caller falls back to commit times). */
const MAX_FILES = 64;

function git(root: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    execFile('git', ['-c', 'core.quotepath=off', '--literal-pathspecs', ...args], { cwd: root, timeout: 10_000, maxBuffer: 4 << 20, windowsHide: true }, (error, stdout) => resolve({ ok: !error, out: String(stdout) }));
  });
}

/** The document's last commit, when it is committed and not edited since; null otherwise. */
export async function documentCommit(root: string, docPath: string): Promise<DocumentCommit | null> {
  const log = await git(root, ['log', '-1', '--format=%H %ct', '--', docPath]);
  const [hash, time] = log.ok ? log.out.trim().split(' ') : [];
  if (!hash || !time) return null;
  // Edited since its commit: its author saw the code as it is now, which git cannot date.
  const status = await git(root, ['status', '--porcelain', '--', docPath]);
  if (!status.ok || status.out.trim() !== '') return null;
  const seen = new Map<string, Promise<ChangedLines | null>>();
  return {
    at: Number(time),
    changed(path) {
      let found = seen.get(path);
      if (!found) {
        found = seen.size >= MAX_FILES ? Promise.resolve(null) : changedSince(root, hash, path);
        seen.set(path, found);
      }
      return found;
    },
  };
}

async function changedSince(root: string, hash: string, path: string): Promise<ChangedLines | null> {
  const diff = await git(root, ['diff', '-U0', '--no-color', '--no-ext-diff', hash, '--', path]);
  if (!diff.ok) return null;
  const ranges: ChangedLines = [];
  for (const m of diff.out.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    // A pure deletion sits between lines `start` and `start + 1`.
    ranges.push(count === 0 ? [start, start + 1] : [start, start + count - 1]);
  }
  if (ranges.length > 0) return ranges;
  // No change: the file as the document's commit had it, or one git does not track (null).
  return (await git(root, ['cat-file', '-e', `${hash}:./${path}`])).ok ? [] : null;
}

/** Whether any changed range meets the lines. */
export function touches(ranges: ChangedLines, lines: readonly [number, number]): boolean {
  return ranges.some(([a, b]) => a <= lines[1] && b >= lines[0]);
}
