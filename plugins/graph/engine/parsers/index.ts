/**
 * Entry point of the language parsers: pick the extractor of a file's language, loading its grammar on
 * first use. After `extractorFor` resolves, extraction is synchronous, so a caller can loop over files fast.
 */
import type { FileExtraction, Language } from '../extraction.ts';
import { goSpec } from './go.ts';
import { javaSpec } from './java.ts';
import { detectLanguage } from './languages.ts';
import { extractMarkdown } from './markdown.ts';
import { pythonSpec } from './python.ts';
import { createChunkedQueryExtractor, createQueryExtractor } from './query-extractor.ts';
import type { Extractor, QueryLanguageSpec } from './query-spec.ts';
import { rustSpec } from './rust.ts';
import { initTreeSitter, loadGrammar, type GrammarName } from './tree-sitter.ts';
import { typescriptSpec } from './typescript.ts';

export type { Extractor } from './query-spec.ts';
export { detectLanguage, LANGUAGES } from './languages.ts';

const SPECS: Record<Exclude<Language, 'markdown'>, QueryLanguageSpec> = {
  typescript: typescriptSpec('typescript'),
  tsx: typescriptSpec('tsx'),
  javascript: typescriptSpec('javascript'),
  python: pythonSpec,
  rust: rustSpec,
  go: goSpec,
  java: javaSpec,
};

const extractors = new Map<Language, Promise<Extractor>>();
const chunkedExtractors = new Map<Language, Promise<Extractor>>();
/** Languages whose extractor this thread holds (its query compiled, whole or in chunks). */
const compiled = new Set<Language>();
const wholeCompiled = new Set<Language>();

/** Starts the tree-sitter runtime and preloads the grammars of `languages` (none by default). */
export async function initParsers(languages: readonly Language[] = []): Promise<void> {
  await initTreeSitter();
  await Promise.all(languages.map((language) => extractorFor(language)));
}

/**
 * The synchronous extractor of a language, loading its grammar and compiling its query on first call
 * (one synchronous call of 10–220 ms by language: for threads that parse many files).
 */
export function extractorFor(language: Language): Promise<Extractor> {
  return cached(extractors, language, buildExtractor);
}

/**
 * An extractor of the language made without holding the thread: the whole query's when this thread
 * compiled it already, else one whose query is compiled in chunks, one per macrotask (query-chunks.ts;
 * its matching costs ~3× the whole query's, for a thread that parses a few files between requests).
 */
export function extractorSliced(language: Language): Promise<Extractor> {
  if (language === 'markdown' || wholeCompiled.has(language)) return extractorFor(language);
  return cached(chunkedExtractors, language, buildChunkedExtractor);
}

function cached(map: Map<Language, Promise<Extractor>>, language: Language, build: (language: Language) => Promise<Extractor>): Promise<Extractor> {
  let pending = map.get(language);
  if (pending === undefined) {
    pending = build(language);
    // A failed load is not cached, so a later call can retry.
    pending.catch(() => map.delete(language));
    map.set(language, pending);
  }
  return pending;
}

/** Whether this thread can extract the language without compiling anything (Markdown never needs to). */
export function extractorReady(language: Language): boolean {
  return language === 'markdown' || compiled.has(language);
}

/** Extracts one file; the language defaults to the one its extension names. Throws for files of no known language. */
export async function extractFile(path: string, source: string, language?: Language): Promise<FileExtraction> {
  const lang = language ?? detectLanguage(path);
  if (lang === null) throw new Error(`no parser for ${path}`);
  const extract = await extractorFor(lang);
  return extract(path, source);
}

async function buildExtractor(language: Language): Promise<Extractor> {
  if (language === 'markdown') return extractMarkdown;
  const spec = SPECS[language];
  const grammar = await loadGrammar(language satisfies GrammarName);
  const extractor = createQueryExtractor(spec, grammar);
  compiled.add(language);
  wholeCompiled.add(language);
  return extractor;
}

async function buildChunkedExtractor(language: Language): Promise<Extractor> {
  const spec = SPECS[language as Exclude<Language, 'markdown'>];
  const grammar = await loadGrammar(language as GrammarName);
  const extractor = await createChunkedQueryExtractor(spec, grammar, () => new Promise<void>((resolve) => setImmediate(resolve)));
  compiled.add(language);
  return extractor;
}
