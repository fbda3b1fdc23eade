/**
 * The merged history of members nested in one another (`ws` and `ws/lib` federated together), as the
 * federated view holds their files: a file belongs to its nearest member root
 * (plugins/graph/federated-nesting.ts). The outer member's git log names the inner member's files too
 * (`lib/src/a.ts`): they are read as the inner member's (`lib::src/a.ts`). When both are one git
 * repository, each commit touching the inner folder is in both logs: it is one commit, its files
 * joined (`ws::src/app.ts` and `lib::src/a.ts` changed together), so commits, churn and co-change
 * pairs are counted once. A gitlink (`lib` itself, an embedded repository's pointer) stays the
 * outer member's: it is the outer repository's record, not a file of the inner member.
 */
import { NAMESPACE_SEPARATOR, type FederationMember, type NestedFolder } from '../graph/api.ts';
import type { FileChange } from './log-parser.ts';

/** A member's git path as the view names it: `<repo>::path`, under the nearest member root holding it. */
export function historyPathOf(member: { name: string; nested?: readonly NestedFolder[] }): (path: string) => string {
  const nested = member.nested ?? [];
  const own = (p: string) => `${member.name}${NAMESPACE_SEPARATOR}${p}`;
  if (nested.length === 0) return own;
  return (p) => {
    let best: NestedFolder | null = null;
    for (const f of nested) if (p.startsWith(f.folder) && (!best || f.folder.length > best.folder.length)) best = f;
    return best ? `${best.member}${NAMESPACE_SEPARATOR}${p.slice(best.folder.length)}` : own(p);
  };
}

/**
 * The outermost member of each member in a nesting (`ws` for both `ws` and `lib`): commits of one
 * such group with one hash are one commit. Members nested in none and holding none are absent
 * (their commits are never joined: two sibling forks keep their own).
 */
export function nestingGroups(members: readonly FederationMember[]): Map<string, string> {
  const inner = new Set(members.flatMap((m) => (m.nested ?? []).map((f) => f.member)));
  const groups = new Map<string, string>();
  for (const m of members) {
    if (inner.has(m.name) || !m.nested?.length) continue;
    groups.set(m.name, m.name);
    for (const f of m.nested) groups.set(f.member, m.name);
  }
  return groups;
}

/**
 * One commit's file changes read from two members' logs, each file once. A rename is kept over a
 * plain change of its new name (the outer log sees a move into the inner folder, the inner log an
 * added file), and a path a rename came from is not a change of its own (git lists a renamed file
 * once).
 */
export function joinChanges(a: readonly FileChange[], b: readonly FileChange[]): FileChange[] {
  const byPath = new Map<string, FileChange>();
  for (const f of [...a, ...b]) {
    const had = byPath.get(f.path);
    if (!had || (had.from === undefined && f.from !== undefined)) byPath.set(f.path, f);
  }
  const renamedFrom = new Set<string>();
  for (const f of byPath.values()) if (f.from !== undefined && f.from !== f.path) renamedFrom.add(f.from);
  return [...byPath.values()].filter((f) => !renamedFrom.has(f.path));
}
