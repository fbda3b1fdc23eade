/**
 * What the receiver evaluator (resolve-receivers.ts) needs from the name resolver, passed in to keep
 * the modules acyclic, and the position it evaluates a text from.
 */
import type { NodeKind } from './graph.ts';
import type { Dependencies, FileScope, NameResolution, SymbolTables } from './resolve-names.ts';

/** What the evaluator needs from the name resolver (passed in to keep the modules acyclic). */
export interface ReceiverContext {
  scope: FileScope;
  tables: SymbolTables;
  deps: Dependencies;
  /** Resolves a bare name from a position in a file (rules 1, 2 and 4). */
  lookup(name: string, from: string | null, scope: FileScope, kinds: ReadonlySet<NodeKind>): NameResolution;
  /** Lexical chain of a caller: `A.b.c` → [`A.b.c`, `A.b`, `A`]. */
  chain(caller: string | null): string[];
  /** A member of a class node or its ancestors, or -1. */
  memberOf(classIdx: number, name: string): number;
  /** Symbols a module's files export under a name, re-exports followed. */
  exported(files: readonly string[], name: string, kinds: ReadonlySet<NodeKind>): number[];
  /** The class-like node a caller sits in (or a method's owner type), or -1. */
  enclosingClass(path: string, caller: string | null, scope: FileScope): number;
}

/** Where a text is evaluated: a file's scope, the caller and line in it, and how deep the evaluation went. */
export interface Position {
  scope: FileScope;
  caller: string | null;
  line: number;
  depth: number;
}
