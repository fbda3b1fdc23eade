/**
 * The vocabulary of name resolution: the symbol tables it reads, the answer it gives, the names an
 * answer depended on, the node kinds each rule accepts, and the lookups every rule shares (lexical
 * chains of a caller, top-level names of files).
 */
import type { GraphNode, NodeKind } from './graph.ts';
import type { ExtractedBinding } from './extraction.ts';
import type { FileScope } from './file-scope.ts';
import type { ResolvedImport } from './resolve.ts';

/** Symbol tables the name resolver reads (implemented by the graph builder). */
export interface SymbolTables {
  /** Node index of the symbol with this qualified name in a file, or -1. */
  symbolIn(path: string, qualifiedName: string): number;
  /** Same as symbolIn(path, `${prefix}.${name}`) (or `name` when prefix is ''), without building the string. */
  memberIn(path: string, prefix: string, name: string): number;
  /** Node indices of all symbols with this short name in the workspace. */
  named(name: string): readonly number[];
  /** Node data. */
  node(index: number): GraphNode;
  /** Resolved parent classes/interfaces of a class-like node (for inherited members). */
  parentsOf(index: number): readonly number[];
  /** Declared result type of a function or method node, as written. */
  returnTypeOf(index: number): string | undefined;
  /** Whether a method is declared private (Java): not inherited. */
  isPrivate(index: number): boolean;
  /** What an unannotated function's result is inferred from: its `return` bindings and the locals they read (type-facts.ts). */
  inferredReturnOf(index: number): readonly ExtractedBinding[] | undefined;
  /** Declared parameter types of a method or constructor node (Java), for choosing among overloads. */
  paramsOf(index: number): readonly string[] | undefined;
  /** True for a property getter (Python `@property`): reading the attribute calls it. */
  isProperty(index: number): boolean;
  /** A field the class-like node itself declares (`self.x = ...`, struct field), not inherited ones. */
  fieldOf(classIndex: number, name: string): { type?: string; value?: string } | undefined;
  /** Each base a class-like node extends, as a dotted name (`httpx.Client`, `ArrayList`). */
  basesOf(classIndex: number): readonly string[];
  /** The traits/interfaces a type of a file implements, by name as written (`[u8]` for `impl Buf for &[u8]`). */
  implementedBy(path: string, typeQualifiedName: string): readonly string[];
  /** The type a module-level alias of a file stands for, as written, if the file declares one of that name. */
  aliasOf(path: string, name: string): string | undefined;
  /** The declared type and/or value of a module-level variable of a file (a receiver-typable one), if it has one of that name. */
  globalOf(path: string, name: string): { type?: string; value?: string } | undefined;
  /** The lookups of a file (to read a type written there), without its local bindings. */
  scopeOfFile(path: string): FileScope | undefined;
  /** Resolved imports of a file (to follow re-exports). */
  importsOf(path: string): readonly ResolvedImport[];
  /** Files directly in a directory (a Go package's other files declare methods too). */
  filesInDir(dir: string): readonly string[];
}

/** Resolution outcome: target nodes and a confidence multiplier for the edge weight. */
export interface NameResolution {
  targets: number[];
  confidence: number;
}

/**
 * Receives the names whose definitions decided an answer (found in another file, in the
 * workspace-wide table, or through a class walked for a member): when a symbol with one of these
 * names appears or disappears anywhere, the file must be re-resolved. An array the caller owns, so
 * resolving allocates nothing per lookup for it.
 */
export type Dependencies = string[];

/** The empty answer. */
export const NONE: NameResolution = { targets: [], confidence: 0 };
/** What a call may target, a type name may name, and what has members. */
export const CALLABLE_KINDS: ReadonlySet<NodeKind> = new Set(['function', 'class', 'method', 'type']);
export const TYPE_KINDS: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
export const CLASS_LIKE: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
/** More candidates than this for a bare global name means "too ambiguous to link". */
export const MAX_AMBIGUOUS = 3;

const chains = new Map<string, string[]>();

/** `A.b.c` → [`A.b.c`, `A.b`, `A`] (memoised: the same callers recur for every call they make). */
export function lexicalChain(caller: string | null): string[] {
  if (!caller) return [];
  // A file's calls come grouped by caller: the last answer is the usual one (no hashing).
  if (caller === lastCaller) return lastChain;
  let out = chains.get(caller);
  if (out) return rememberChain(caller, out);
  out = [];
  for (let q = caller; q; q = q.slice(0, Math.max(0, q.lastIndexOf('.')))) out.push(q);
  if (chains.size > 50_000) chains.clear();
  chains.set(caller, out);
  return rememberChain(caller, out);
}

let lastCaller: string | null = null;
let lastChain: string[] = [];

function rememberChain(caller: string, chain: string[]): string[] {
  lastCaller = caller;
  lastChain = chain;
  return chain;
}

/** True when the node's kind is one of `kinds`. */
export function inKinds(tables: SymbolTables, idx: number, kinds: ReadonlySet<NodeKind>): boolean {
  return kinds.has(tables.node(idx).kind);
}

/** Symbols named `name` declared at the top of any of the files. */
export function topLevelIn(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>): number[] {
  const out: number[] = [];
  for (const f of files) {
    const i = tables.memberIn(f, '', name);
    if (i >= 0 && inKinds(tables, i, kinds)) out.push(i);
  }
  return out;
}

/** An answer with at most MAX_AMBIGUOUS targets. */
export function found(targets: number[], confidence: number): NameResolution {
  return { targets: targets.length > MAX_AMBIGUOUS ? targets.slice(0, MAX_AMBIGUOUS) : targets, confidence };
}
