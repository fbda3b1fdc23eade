/**
 * One bounded pass over git history: `git log --name-only` for the last N commits, parsed into
 * commits, per-file recency (last commit time, commit count) and co-change pairs. The HEAD is read
 * from `.git` directly so an incremental ingest can tell whether history moved without spawning git.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { GitFacts } from './build.ts';
import type { GitCommit } from './store.ts';

/** History scan settings. */
export interface GitScanOptions {
  /** Commits to read, newest first (default 2000). */
  maxCommits?: number;
  /** Commits touching more files than this are ignored for co-change (mass edits say little). */
  maxFilesPerCommit?: number;
  timeoutMs?: number;
}

/** Finds the `.git` directory of the repository containing `root`, or null. */
export function findGitDir(root: string): string | null {
  let dir = resolve(root);
  for (;;) {
    const dotGit = join(dir, '.git');
    if (existsSync(dotGit)) {
      try {
        if (statSync(dotGit).isDirectory()) return dotGit;
        // A worktree or submodule: `.git` is a file naming the real directory.
        const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
        if (m) return resolve(dir, m[1].trim());
      } catch {
        return null;
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** The commit HEAD points at, read from the git directory (no process spawn), or null. */
export function readGitHead(gitDir: string): string | null {
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref:')) return head;
    const ref = head.slice(4).trim();
    // Worktrees keep refs in the common directory.
    const common = existsSync(join(gitDir, 'commondir')) ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim()) : gitDir;
    for (const base of [gitDir, common]) {
      const p = join(base, ref);
      if (existsSync(p)) return readFileSync(p, 'utf8').trim();
    }
    for (const base of [gitDir, common]) {
      const packed = join(base, 'packed-refs');
      if (!existsSync(packed)) continue;
      for (const line of readFileSync(packed, 'utf8').split('\n')) {
        const [sha, name] = line.split(' ');
        if (name === ref) return sha;
      }
    }
    return null; // an unborn branch
  } catch {
    return null;
  }
}

const RECORD = '\x1e';
const FIELD = '\x1f';

/** Runs `git log` in `root` (paths come out relative to it) and parses the commits, newest first. */
export function scanGitLog(root: string, options: GitScanOptions = {}): Promise<GitCommit[]> {
  const max = options.maxCommits ?? 2000;
  const args = ['-c', 'core.quotepath=off', 'log', `-n${max}`, '--no-merges', '--no-renames', '--name-only', '--relative', `--format=${RECORD}%H${FIELD}%ct${FIELD}%s`, '--', '.'];
  return new Promise((resolvePromise) => {
    execFile('git', args, { cwd: root, maxBuffer: 256 * 1024 * 1024, timeout: options.timeoutMs ?? 20_000 }, (err, stdout) => {
      // No git, not a repository, or no commits yet: history is simply empty (as it is when no commit touches `root`).
      // The history verbs tell these cases apart for the agent (plugins/history/git.ts, noHistory).
      if (err) return resolvePromise([]);
      resolvePromise(parseGitLog(stdout));
    });
  });
}

/** Parses the output format used by scanGitLog. */
export function parseGitLog(out: string): GitCommit[] {
  const commits: GitCommit[] = [];
  for (const rec of out.split(RECORD)) {
    if (!rec.trim()) continue;
    const nl = rec.indexOf('\n');
    const header = nl < 0 ? rec : rec.slice(0, nl);
    const [hash, time, subject] = header.split(FIELD);
    const files = nl < 0 ? [] : rec.slice(nl + 1).split('\n').map((l) => l.trim()).filter(Boolean);
    commits.push({ hash, time: Number(time), subject: subject ?? '', files });
  }
  return commits;
}

/**
 * Per-file recency and co-change pairs from commits. A pair's weight is the Jaccard index of the two
 * files' commit sets; pairs seen only once are dropped (noise), and each file keeps its top partners.
 */
export function gitFactsFrom(commits: readonly GitCommit[], options: { maxFilesPerCommit?: number; maxPartners?: number; minCount?: number } = {}): GitFacts {
  const maxFiles = options.maxFilesPerCommit ?? 50;
  const maxPartners = options.maxPartners ?? 20;
  const minCount = options.minCount ?? 2;
  const files = new Map<string, { lastCommitAt: number; commitCount: number }>();
  const together = new Map<string, number>();
  for (const c of commits) {
    for (const f of c.files) {
      const cur = files.get(f);
      if (cur) {
        cur.commitCount++;
        if (c.time > cur.lastCommitAt) cur.lastCommitAt = c.time;
      } else files.set(f, { lastCommitAt: c.time, commitCount: 1 });
    }
    if (c.files.length < 2 || c.files.length > maxFiles) continue;
    const sorted = [...new Set(c.files)].sort();
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const key = `${sorted[i]}\0${sorted[j]}`;
        together.set(key, (together.get(key) ?? 0) + 1);
      }
    }
  }
  const candidates: { a: string; b: string; weight: number }[] = [];
  for (const [key, count] of together) {
    if (count < minCount) continue;
    const [a, b] = key.split('\0');
    const ca = files.get(a)!.commitCount;
    const cb = files.get(b)!.commitCount;
    candidates.push({ a, b, weight: count / (ca + cb - count) });
  }
  candidates.sort((x, y) => y.weight - x.weight);
  const partners = new Map<string, number>();
  const pairs: { a: string; b: string; weight: number }[] = [];
  for (const p of candidates) {
    const na = partners.get(p.a) ?? 0;
    const nb = partners.get(p.b) ?? 0;
    if (na >= maxPartners || nb >= maxPartners) continue;
    partners.set(p.a, na + 1);
    partners.set(p.b, nb + 1);
    pairs.push(p);
  }
  return { files, pairs };
}
