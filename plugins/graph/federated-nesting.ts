/**
 * A member whose root is inside another member's (`ws` and `ws/lib` federated together): the outer
 * member's graph, ingested from its own root, holds the inner member's files too. In the federated
 * view they belong to the inner member alone, as a monorepo tool gives a file to its nearest package
 * root: the outer member's nodes under that folder are left out of the view, and its edges between
 * its own files and that folder's become cross-repository edges to the inner member's nodes.
 */
import type { GraphNode } from './engine/graph.ts';

/** A folder of a member (`lib/`, ending in `/`) that is another member's root. */
export interface NestedFolder {
  folder: string;
  /** The member whose root it is. */
  member: string;
}

/**
 * The nested folder a member's path is in (the deepest, when members nest twice: a file belongs to
 * its nearest root), or null. The folder's own module node (`lib`, no slash) is in it.
 */
export function nestedFolderOf(path: string, folders: readonly NestedFolder[]): NestedFolder | null {
  let best: NestedFolder | null = null;
  for (const f of folders) {
    if (best && best.folder.length >= f.folder.length) continue;
    if (path.startsWith(f.folder) || path.length === f.folder.length - 1 && f.folder.startsWith(path)) best = f;
  }
  return best;
}

/**
 * The id the inner member gives a node of the outer member under `f` (`function:lib/src/a.ts#f` →
 * `function:src/a.ts#f`, `file:lib/a.ts` → `file:a.ts`, `module:lib` → `module:.`), or null for an
 * id not made of its kind and path.
 */
export function counterpartId(node: GraphNode, f: NestedFolder): string | null {
  const head = [node.kind, ':', node.path].join('');
  if (!node.id.startsWith(head)) return null;
  const rest = node.path.startsWith(f.folder) ? node.path.slice(f.folder.length) : '';
  return [node.kind, ':', rest === '' ? '.' : rest, node.id.slice(head.length)].join('');
}
