/** The contract between the shared query engine and each tree-sitter language: what a language spec provides. */
import type { ExtractedImport, FileExtraction, Language, SymbolKind } from '../extraction.ts';
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
  /** Language-specific rewriting of the finished extraction (TS: overload sets merged). */
  finish?(extraction: FileExtraction, source: string): FileExtraction;
}

/** Turns one file's source into its extraction; synchronous, reusable across files. */
export type Extractor = (path: string, source: string) => FileExtraction;
