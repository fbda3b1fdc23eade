/**
 * What the code graph is made of: node kinds, relations with their codes and default weights, the
 * node and edge records, and node ids. The graph itself (storage, adjacency) is graph.ts.
 */
import type { Language } from './extraction.ts';

/** Kinds of node in the graph. */
export type NodeKind = 'file' | 'module' | 'class' | 'interface' | 'function' | 'method' | 'type' | 'section';

/** Relations between nodes; the array index is the relation code stored per edge. */
export const RELATIONS = [
  'contains',
  'imports',
  'calls',
  'references',
  'inherits',
  'implements',
  'tests',
  'documents',
  'co_changes',
  'dispatches',
] as const;

/** A relation name. */
export type Relation = (typeof RELATIONS)[number];

/** Relation name → relation code. */
export const RELATION_CODE: Readonly<Record<Relation, number>> = Object.freeze(
  Object.fromEntries(RELATIONS.map((r, i) => [r, i])) as Record<Relation, number>,
);

/**
 * Default weight per relation, in (0,1], read as "how strongly a change to or interest in the target
 * concerns the source". docs/graph-model.md justifies each value; resolution confidence multiplies it.
 */
export const DEFAULT_WEIGHTS: Readonly<Record<Relation, number>> = Object.freeze({
  contains: 0.9, // file→symbol, class→method; module→file and module→module use STRUCTURAL_CONTAINS_WEIGHT
  imports: 0.8,
  calls: 1.0,
  references: 0.6,
  inherits: 0.9,
  implements: 0.7,
  tests: 0.7,
  documents: 0.5,
  co_changes: 0.8, // the maximum; the actual weight is 0.8 × Jaccard(commits of a, commits of b)
  dispatches: 0.5, // a call through an interface/abstract member may run this implementation, or another one
});

/** Weight of directory containment (module→file, module→module): a grouping, not a dependency. */
export const STRUCTURAL_CONTAINS_WEIGHT = 0.4;

/** One node of the code graph. Symbols carry the qualified name that makes their id. */
export interface GraphNode {
  id: string;
  kind: NodeKind;
  /** Short name: symbol name, file basename, directory basename. */
  label: string;
  /** Workspace-relative path with forward slashes (a directory for modules, '.' for the root). */
  path: string;
  /** 1-based inclusive line range; 0..0 for modules. */
  startLine: number;
  endLine: number;
  /** Language of the file the node lives in; null for modules. */
  language: Language | null;
  /** Dotted path inside the file (symbols only). */
  qualifiedName?: string;
  exported?: boolean;
  doc?: string;
  /** Text indexed for seek but never shown (a converted document's whole section, bounded by its producer); not persisted. */
  text?: string;
  /** TS overloads merged into this function/method: each signature's text. */
  signatures?: string[];
  /** Files only: unix seconds of the last commit touching the file (when the workspace is a git repo). */
  lastCommitAt?: number;
  /** Files only: commits touching the file within the scanned history window. */
  commitCount?: number;
  /** Files only: true when path/name conventions mark it as a test file. */
  isTest?: boolean;
}

/** A stored edge as seen by callers. */
export interface GraphEdge {
  source: string;
  target: string;
  relation: Relation;
  weight: number;
}

/*
 * Ids are joined, not concatenated: `a + b` (and a template literal) makes V8 keep a tree of
 * concatenated-string objects (up to three per symbol id, 32 bytes each) that every garbage
 * collection traces and every Map lookup walks; `join` makes one flat string. On the python3 prefix
 * (270K nodes) the ids were ~800K such objects, 24 MB of a 261 MB heap.
 */

/** Id of a file node. */
export function fileNodeId(path: string): string {
  return ['file:', path].join('');
}

/** Id of a module (directory) node; the workspace root is '.'. */
export function moduleNodeId(dir: string): string {
  return ['module:', dir === '' ? '.' : dir].join('');
}

/** Id of a symbol node: `<kind>:<relpath>#<qualifiedName>`. */
export function symbolNodeId(kind: NodeKind, path: string, qualifiedName: string): string {
  return [kind, ':', path, '#', qualifiedName].join('');
}
