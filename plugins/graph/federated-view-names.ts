/**
 * The federated view's vocabulary: its members, the cross-repository links, and the `<repo>::`
 * namespace its ids and paths carry (federated-view.ts is the view itself).
 */
import type { CodeGraphEngine } from './engine/engine.ts';
import type { NestedFolder } from './federated-nesting.ts';

/** Separates a member's name from its ids and paths. */
export const NAMESPACE_SEPARATOR = '::';

/** One repository of the view. */
export interface FederationMember {
  name: string;
  engine: CodeGraphEngine;
  /** True for the served workspace (its engine is the graph service's, refreshed and watched there). */
  own: boolean;
  /** Folders of this member that are other members' roots: their files are those members' alone (federated-nesting.ts). */
  nested?: readonly NestedFolder[];
}

/**
 * A cross-repository link between namespaced ids. `depends_on` (manifest → manifest) becomes an
 * `imports` edge; `inherits` a class extending another repository's type; `references` a type
 * named without a call (an annotation) or evidence shared without a dependency (a route, a contract,
 * a configuration key). An endpoint that is a file the member's graph does not hold (a manifest, a
 * `.proto`) stands for that repository: its root module.
 */
export interface FederationLink {
  source: string;
  target: string;
  relation: 'depends_on' | 'imports' | 'calls' | 'inherits' | 'references';
}

/** What the view is made of: its members and how to link them (recomputed when a member changes). */
export interface FederationSpec {
  members: FederationMember[];
  link(members: readonly FederationMember[]): Promise<FederationLink[]>;
}

/** The repository name an id or path is namespaced with (`lib` of `lib::src/a.ts`), or null. */
export function namespaceOf(text: string): string | null {
  const at = text.indexOf(NAMESPACE_SEPARATOR);
  return at > 0 ? text.slice(0, at) : null;
}

/** The file node id of a path, in the workspace graph (`file:src/a.ts`) or the federated view (`lib::file:src/a.ts` for `lib::src/a.ts`). */
export function fileIdOf(path: string): string {
  const ns = namespaceOf(path);
  return ns === null ? `file:${path}` : `${ns}${NAMESPACE_SEPARATOR}file:${path.slice(ns.length + NAMESPACE_SEPARATOR.length)}`;
}
