/** The contract between the shared query engine and each tree-sitter language: what a language spec provides. */
import type { ExtractedImport, FileExtraction, Language, SymbolKind } from '../extraction.ts';
import type { Node, Tree } from 'web-tree-sitter';
import type { DocCommentRules } from './doc-text.ts';

/** What a declaration or a non-symbol scope (Rust impl, module, namespace) is. */
export type EntryKind = SymbolKind | 'impl' | 'scope';

/** Facts a language weighs to decide whether a symbol is visible outside its file. */
export interface ExportFacts {
  name: string;
  kind: SymbolKind;
  /** The declaration (or a wrapper of it) carries the language's export mark: `export`, `pub`, `public`. */
  marked: boolean;
  /** The declaration carries a private mark (TS `private`). */
  isPrivate: boolean;
  /** The name appears in a top-level `export { name }` list. */
  namedExport: boolean;
  /** The enclosing declaration or scope, if any. */
  parent?: { kind: EntryKind; exported: boolean; trait?: string };
  /** Some enclosing declaration is a function or method. */
  insideFunction: boolean;
}

/** Everything the shared engine needs to know about one tree-sitter language. */
export interface QueryLanguageSpec {
  language: Language;
  /** Query source, written against the grammar's node types. */
  query: string;
  /** Python reads docstrings; the others read comments above declarations by these rules. */
  docs: 'docstring' | DocCommentRules;
  /** Type names never reported as references (primitives and built-ins). */
  builtinTypes: ReadonlySet<string>;
  /** Parses the text of an `@import.stmt` node into imports. */
  parseImport(statement: string, line: number, out: ExtractedImport[]): void;
  /** Decides ExtractedSymbol.exported. */
  isExported(facts: ExportFacts): boolean;
  /**
   * Rewrites syntax the grammar does not know into syntax it does, keeping every offset (same length,
   * newlines in place). Tried only on files that parse with errors; the better parse is kept.
   */
  repair?(source: string): string;
  /**
   * Words the language lets name a member (TS `catch()`) but that error recovery also turns into
   * declarations (`while (x) {` in a broken class body): dropped as names in files with parse errors.
   */
  reservedWords?: ReadonlySet<string>;
  /** Node types of anonymous functions whose parameters the query binds (their names are visible only inside). */
  closureTypes?: ReadonlySet<string>;
  /** Declared parameter types of a declaration node (languages with overloads: Java). */
  params?(decl: Node, text: (n: Node) => string): string[] | undefined;
  /** Argument shapes of the call whose callee name node is given (see ExtractedCall.args). */
  args?(nameNode: Node, text: (n: Node) => string): string[] | undefined;
  /** The type an anonymous class body around a call extends or implements, whose members a bare call there may name (Java). */
  within?(nameNode: Node, text: (n: Node) => string): string | undefined;
  /** Last word on a finished extraction (Python merges `@overload` stubs into their implementation). */
  refine?(extraction: FileExtraction, source: string): void;
  /** Language-specific rewriting of the finished extraction (TS: overload sets merged). */
  finish?(extraction: FileExtraction, source: string): FileExtraction;
}

/** Turns one file's source into its extraction; synchronous, reusable across files. */
/** `onTree` (parse extensions) sees the tree and the text it was parsed from, before the tree is freed. */
export type Extractor = (path: string, source: string, onTree?: (tree: Tree, source: string) => void) => FileExtraction;
