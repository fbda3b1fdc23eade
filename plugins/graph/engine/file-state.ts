/**
 * What the graph builder keeps per file between builds: the linking state plus the invalidation
 * keys (names looked up, stems missed, import targets) and the type facts other files read.
 */
import type { FileExtraction, Language } from './extraction.ts';
import type { LinkedFile } from './link-file.ts';
import type { TypeFacts } from './type-facts.ts';

/** The builder's per-file state. */
export interface FileState extends LinkedFile {
  /** The extraction, or null once linked when the builder re-loads extractions on demand. */
  extraction: FileExtraction | null;
  /** True while `extraction` lacks calls, references and doc links (see FileInput.partial). */
  partial: boolean;
  parseErrors: number;
  /** Line of the first parse error (0 when clean or not recorded). */
  parseErrorLine: number;
  /** Names this file looked up in the workspace-wide table (invalidation keys). */
  globalNames: string[];
  /** Basename stems of imports/links that did not resolve (invalidation keys for added files). */
  missStems: string[];
  /** Files this file's imports resolved to (registered in `importers`). */
  importTargets: string[];
  /** What other files' receiver types read here: declared return types and class fields. */
  typeFacts: TypeFacts;
}

/** An extraction with nothing in it, for a file whose stored extraction cannot be loaded back. */
export function emptyExtraction(path: string, language: Language): FileExtraction {
  return { path, language, loc: 0, symbols: [], imports: [], calls: [], inherits: [], references: [], docLinks: [], parseErrors: 0 };
}

/**
 * What a partial file's state keeps of its light extraction once its nodes are made: the imports
 * and inherits its link passes resolve before the full extraction is loaded back. Symbols, fields
 * and the rest were copied into nodes and type facts; keeping them would hold every symbol object
 * of a big workspace through the build.
 */
export function linkOnlyExtraction(extraction: FileExtraction): FileExtraction {
  return { path: extraction.path, language: extraction.language, loc: extraction.loc, symbols: [], imports: extraction.imports, calls: [], inherits: extraction.inherits, references: [], docLinks: [], parseErrors: extraction.parseErrors };
}
