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
import { createQueryExtractor } from './query-extractor.ts';
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
/** Languages whose extractor this thread holds (its query compiled). */
const compiled = new Set<Language>();

/** Starts the tree-sitter runtime and preloads the grammars of `languages` (none by default). */
export async function initParsers(languages: readonly Language[] = []): Promise<void> {
  await initTreeSitter();
  await Promise.all(languages.map((language) => extractorFor(language)));
}

/** The synchronous extractor of a language, loading its grammar and compiling its query on first call. */
export function extractorFor(language: Language): Promise<Extractor> {
  let pending = extractors.get(language);
  if (pending === undefined) {
    pending = buildExtractor(language);
    // A failed load is not cached, so a later call can retry.
    pending.catch(() => extractors.delete(language));
    extractors.set(language, pending);
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
  return extractor;
}
