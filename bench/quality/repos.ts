/**
 * Where the benchmark repositories come from: bare git mirrors (one per repository) under a
 * repos directory, read at the exact commit of repos.json and extracted into a temp directory.
 * Nothing fetched is committed to this repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const QUALITY_DIR = path.dirname(fileURLToPath(import.meta.url));

/** One repository of the benchmark, as recorded in repos.json. */
export interface BenchRepo {
  id: string;
  repo: string;
  commit: string;
  language: 'typescript' | 'javascript' | 'python' | 'go' | 'java' | 'rust';
  /** Paths extracted from the commit (large binary blobs elsewhere may be absent from a mirror). */
  paths: string[];
  /** Declarations under this directory get ground truth ('' = the whole repository). */
  truthScope: string;
}

/** The repositories of repos.json. */
export function benchRepos(): BenchRepo[] {
  return JSON.parse(fs.readFileSync(path.join(QUALITY_DIR, 'repos.json'), 'utf8')).repos as BenchRepo[];
}

/** Directory holding the mirrors: M1ND_QUALITY_REPOS, else the fetch tool's /work/.mirror. */
export function reposDir(): string {
  return process.env.M1ND_QUALITY_REPOS ?? '/work/.mirror';
}

/**
 * The git directory of a repository's mirror, or null. Accepted layouts under the repos directory:
 * `<owner>+<name>/repo` (the fetch tool), `<owner>+<name>`, `<owner>/<name>`, `<name>.git`, `<name>`
 * — a bare repository or a clone, as long as it holds the commit.
 */
export function mirrorOf(r: BenchRepo, dir = reposDir()): string | null {
  const [owner, name] = r.repo.split('/');
  const candidates = [`${owner}+${name}/repo`, `${owner}+${name}`, `${owner}/${name}`, `${name}.git`, name].map((c) => path.join(dir, c));
  for (const c of candidates) {
    if (!fs.existsSync(c)) continue;
    try {
      execFileSync('git', ['--git-dir', fs.existsSync(path.join(c, '.git')) ? path.join(c, '.git') : c, 'cat-file', '-e', `${r.commit}^{commit}`], { stdio: 'ignore' });
      return fs.existsSync(path.join(c, '.git')) ? path.join(c, '.git') : c;
    } catch {
      // not a git directory holding the commit: try the next layout
    }
  }
  return null;
}

/** Extracts the repository's paths at its commit into a fresh temp directory and returns it. */
export function extractRepo(r: BenchRepo, gitDir: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `m1nd-quality-${r.id}-`));
  const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', '--format=tar', r.commit, ...r.paths], {
    maxBuffer: 512 * 1024 * 1024,
    // git reports blobs missing from a partial mirror even outside the requested paths; the archive is complete.
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  return dir;
}

/** How to provide the repositories, for the message printed when they are absent. */
export function howToProvide(missing: BenchRepo[]): string {
  return [
    `quality: skipped — no git mirror found under ${reposDir()} for: ${missing.map((r) => `${r.repo}@${r.commit.slice(0, 12)}`).join(', ')}.`,
    'Provide them with, for each repository:',
    ...missing.map((r) => `  git clone --bare https://github.com/${r.repo} "$M1ND_QUALITY_REPOS/${r.repo.replace('/', '+')}"`),
    'then run M1ND_QUALITY_REPOS=<that directory> npm run bench:quality (see docs/benchmarks.md, Quality).',
  ].join('\n');
}
