/**
 * Repository identity: what keys a workspace's rows in a team store, so two checkouts of one
 * repository share state and two repositories never do. It is the repository's root commit plus its
 * normalised `origin` URL (read with the git CLI, bounded); a workspace outside git is keyed by its
 * absolute path (it shares with nobody). `storage.repository` / M1ND_REPOSITORY_ID override it.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

function git(cwd: string, args: string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 5000, maxBuffer: 64 * 1024, windowsHide: true }, (error, stdout) => resolve(error ? null : stdout.trim()));
  });
}

/**
 * A remote URL reduced to host/path: scheme, credentials, port-less ssh syntax and `.git` dropped,
 * host lower-cased. `git@github.com:Org/Repo.git`, `https://user:pw@GitHub.com/Org/Repo` and
 * `ssh://git@github.com/Org/Repo.git` all give `github.com/Org/Repo`.
 */
export function normaliseRemote(url: string, base = process.cwd()): string {
  let u = url.trim();
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) u = `ssh://${scp[1]}/${scp[2]}`;
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/:]+)(?::\d+)?(\/.*)?$/i.exec(u);
  const joined = m ? `${m[1].toLowerCase()}${m[2] ?? ''}` : path.resolve(base, u.replace(/^file:\/\//, ''));
  return joined.replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '');
}

/** The identity of the repository at `root` (see the file comment). */
export async function repositoryIdentity(root: string, override?: string): Promise<string> {
  if (override) return `id:${override}`;
  const roots = await git(root, ['rev-list', '--max-parents=0', 'HEAD']);
  if (!roots) return `path:${path.resolve(root)}`;
  const first = roots.split('\n').sort()[0];
  const remote = await git(root, ['config', '--get', 'remote.origin.url']);
  return remote ? `git:${first}@${normaliseRemote(remote, root)}` : `git:${first}`;
}
