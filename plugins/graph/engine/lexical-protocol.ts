/** Messages between the main thread and the seek index's build process (lexical-worker.ts). */
import type { GraphNode } from './graph.ts';
import type { FieldName } from './lexical-text.ts';

/** Main thread → worker: a build's parameters, then its node slots in chunks, then `end`. */
export type BuildRequest =
  | {
      type: 'start';
      /** Workspace root: files are read from it. */
      root: string;
      /** The key the file is written under (the store generation). */
      key: string;
      /** Scratch file the index file's bytes are written to. */
      out: string;
      version: number;
      capacity: number;
      /** Field length means used where a field is absent from every node. */
      averages: Record<FieldName, number>;
    }
  | { type: 'nodes'; from: number; /** JSON of (NodeTuple | null)[], slots from `from` on. */ json: string }
  | { type: 'end' };

/** Build process → main thread: the scratch file is written (and the slot-layout hash), or why it failed. */
export type BuildResponse = { type: 'done'; hash: string } | { type: 'error'; message: string };

/** What a build reads of a node: id, kind, label, path, lines, language, qualified name, doc, index-only text, test flag. */
export type NodeTuple = [
  id: string,
  kind: GraphNode['kind'],
  label: string,
  path: string,
  startLine: number,
  endLine: number,
  language: GraphNode['language'],
  qualifiedName: string | null,
  doc: string | null,
  text: string | null,
  isTest: boolean | null,
];

/** The node a tuple describes (the fields a build reads). */
export function nodeOfTuple(t: NodeTuple): GraphNode {
  const n: GraphNode = { id: t[0], kind: t[1], label: t[2], path: t[3], startLine: t[4], endLine: t[5], language: t[6] };
  if (t[7] !== null) n.qualifiedName = t[7];
  if (t[8] !== null) n.doc = t[8];
  if (t[9] !== null) n.text = t[9];
  if (t[10] !== null) n.isTest = t[10];
  return n;
}
