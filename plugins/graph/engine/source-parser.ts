/**
 * The engine's view of the language parsers: detect a file's language, get a synchronous extractor
 * per language, and a version string that changes whenever the parsers do (stored extractions made
 * by another parser version are re-parsed). The default implementation loads ./parsers lazily.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tree } from 'web-tree-sitter';
import type { FileExtraction, Language } from './extraction.ts';

/** Extracts one file synchronously; `onTree` (parse extensions) sees the tree and the text it was parsed from, if one was made. */
export type FileExtractor = (path: string, source: string, onTree?: (tree: Tree, source: string) => void) => FileExtraction;

/** What the engine needs from the parsers. */
export interface SourceParser {
  detectLanguage(path: string): Language | null;
  /** The extractor of a language (loads its grammar on first call). */
  extractorFor(language: Language): Promise<FileExtractor>;
  /**
   * An extractor of the language made without holding the event loop (the default parsers compile
   * the query in chunks, one per macrotask, and match ~3× slower), for a few files between requests.
   * Absent: `extractorFor` is used.
   */
  extractorSliced?(language: Language): Promise<FileExtractor>;
  /** Changes whenever extraction output may change. */
  version: string;
  /** True for the default tree-sitter parsers, which parse workers can load too (an injected parser runs in-process). */
  parallel?: boolean;
  /**
   * Whether this thread holds an extractor of the language already. Making one costs the thread the
   * language's query compile (Python 105–220 ms, TypeScript ~110 ms of CPU; in slices through
   * `extractorSliced`), so a background ingest that has parse workers parses there while it holds none.
   */
  ready?(language: Language): boolean;
}

/** The parser's extractor for a few files between requests: `extractorSliced` when it has one. */
export function extractorBetweenRequests(parser: SourceParser, language: Language): Promise<FileExtractor> {
  return parser.extractorSliced ? parser.extractorSliced(language) : parser.extractorFor(language);
}

let defaultParser: Promise<SourceParser> | null = null;

/** The tree-sitter parsers in ./parsers, initialised once per process. */
export function loadDefaultParser(): Promise<SourceParser> {
  defaultParser ??= (async () => {
    const mod = await import('./parsers/index.ts');
    await mod.initParsers();
    const declared = (mod as { PARSER_VERSION?: unknown }).PARSER_VERSION;
    return {
      detectLanguage: mod.detectLanguage,
      extractorFor: mod.extractorFor,
      extractorSliced: mod.extractorSliced,
      ready: mod.extractorReady,
      version: typeof declared === 'string' ? declared : fingerprintParsers(),
      parallel: true,
    };
  })();
  defaultParser.catch(() => (defaultParser = null));
  return defaultParser;
}

/** Content hash of the parser sources and the extraction contract (used when no version is declared). */
export function fingerprintParsers(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const h = createHash('sha1');
  const add = (path: string): void => {
    try {
      h.update(path).update(readFileSync(path));
    } catch {
      // a missing file simply does not contribute
    }
  };
  add(join(here, 'extraction.ts'));
  const dir = join(here, 'parsers');
  let names: string[] = [];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  for (const name of names) if (/\.(ts|js|scm)$/.test(name)) add(join(dir, name));
  return h.digest('hex').slice(0, 16);
}
