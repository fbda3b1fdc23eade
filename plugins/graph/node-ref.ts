/** A node as verbs show it (id, kind, label, where), and the output schema of that shape. */
import { Type } from '../../core/index.ts';
import type { GraphNode } from './engine/graph.ts';

/** A node as verbs show it: id, kind, label, path and its line range (null for a module). */
export function nodeRef(n: GraphNode) {
  return { id: n.id, kind: n.kind, label: n.label, path: n.path, lines: n.kind === 'module' ? null : [n.startLine, n.endLine] };
}

/** Output schema of {@link nodeRef}'s result. */
export const NodeRefSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  label: Type.String(),
  path: Type.String(),
  lines: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
});
