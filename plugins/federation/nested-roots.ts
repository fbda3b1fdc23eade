/**
 * Members whose root is inside another member's (`app` and `app/svc` federated together): the outer
 * graph holds the inner member's files too, and each file is read for its own member only (read for
 * both, their cross edges were made twice and the member was tied to itself).
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { FederatedRepo } from './cross-edges.ts';

/** The folders of other members inside a repository's root (`svc/` of `app` when `app/svc` is federated too). */
export function innerRoots(repos: readonly FederatedRepo[], repo: FederatedRepo): string[] {
  const out: string[] = [];
  for (const o of repos) {
    const rel = relative(repo.root, o.root);
    if (o !== repo && rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) out.push(`${rel.split(sep).join('/')}/`);
  }
  return out;
}

/** Whether a repository's file is its own. */
export type Owns = (repo: FederatedRepo, path: string) => boolean;

/** Each repository's own files: none under another member's root inside its own. */
export function ownership(repos: readonly FederatedRepo[]): Owns {
  const inner = new Map(repos.map((r) => [r, innerRoots(repos, r)] as const));
  return (repo, path) => !inner.get(repo)?.some((p) => path.startsWith(p));
}
