/**
 * Syntax trees for the scans: one tree-sitter parser per language, compiled queries cached per
 * language and source, and the small node helpers the rules share. Trees are deleted by the caller
 * right after use (WASM memory). The grammars come from a loader set by the side that runs the
 * code: the graph engine's (grammars.ts) in the server, a direct one in a facts worker — so a
 * worker loads neither the host nor the engine.
 */
import type { Language as TsLanguage, Node, Parser, Query, Tree } from 'web-tree-sitter';
import type { GrammarName, Language } from '../graph/api.ts';

export type { Node, Tree };

const GRAMMAR: Partial<Record<Language, GrammarName>> = {
  typescript: 'typescript',
  tsx: 'tsx',
  javascript: 'javascript',
  python: 'python',
  rust: 'rust',
  go: 'go',
  java: 'java',
};

/** Grammars the scans use. */
export const GRAMMAR_NAMES = [...new Set(Object.values(GRAMMAR))] as GrammarName[];

/** Languages the scans parse. */
export const CODE_LANGUAGES = Object.keys(GRAMMAR) as Language[];

interface LoadedLanguage {
  language: TsLanguage;
  parser: Parser;
  queries: Map<string, Query>;
}
const loaded = new Map<Language, Promise<LoadedLanguage>>();
let loader: ((grammar: GrammarName) => Promise<TsLanguage>) | null = null;
/** The web-tree-sitter classes of the instance the loader's grammars belong to (web-tree-sitter is not imported here, so nothing loads it at start). */
type Runtime = () => { Parser: typeof Parser; Query: typeof Query };
let runtime: Runtime | null = null;

/** Sets where grammars come from and the web-tree-sitter classes that work with them (once per thread). */
export function setGrammarLoader(load: (grammar: GrammarName) => Promise<TsLanguage>, classes: Runtime): void {
  loader ??= load;
  runtime ??= classes;
}

/** A query that does not compile: `message` says why. */
export class QueryError extends Error {}

async function load(language: Language): Promise<LoadedLanguage | null> {
  const grammar = GRAMMAR[language];
  if (!grammar) return null;
  let pending = loaded.get(language);
  if (!pending) {
    if (!loader) throw new Error('no grammar loader set (import grammars.ts in the server)');
    pending = loader(grammar).then((lang) => {
      const parser = new (runtime!().Parser)();
      parser.setLanguage(lang);
      return { language: lang, parser, queries: new Map() };
    });
    pending.catch(() => loaded.delete(language));
    loaded.set(language, pending);
  }
  return pending;
}

/**
 * Starts loading a language's grammar, without waiting (a facts worker sketching for a cold `twins`
 * loads the grammar its `shapes` job will parse with meanwhile, not after).
 */
export function preloadGrammar(language: Language): void {
  load(language).catch(() => undefined); // a failure shows again, and is handled, where the grammar is used
}

/** A parsed file; `done()` frees the tree. */
export interface ParsedFile {
  tree: Tree;
  language: Language;
  query(source: string): Query;
  done(): void;
}

/** A byte range of the text to parse alone (tree-sitter's included ranges: the rest is skipped). */
export interface TextRange {
  startIndex: number;
  endIndex: number;
  startPosition: { row: number; column: number };
  endPosition: { row: number; column: number };
}

/**
 * The input of a parse on included ranges (sorted, apart): the text from where the parser reads up
 * to the end of the range it reads in. Each chunk the parser is given is copied into its memory (up
 * to 5,119 characters a read, and a parse on many small ranges reads several times in each), so a
 * chunk running on past its range costs a copy nobody reads.
 */
function rangedInput(text: string, ranges: readonly TextRange[]): (index: number) => string {
  let r = 0;
  return (index) => {
    while (r > 0 && ranges[r].startIndex > index) r--;
    while (r + 1 < ranges.length && ranges[r].endIndex <= index) r++;
    const range = ranges[r];
    return text.slice(index, range.startIndex <= index && index < range.endIndex ? range.endIndex : text.length);
  };
}

/** Parses `text` as `language` (only `ranges` when given); null for a language the scans do not parse. */
export async function parseCode(language: Language, text: string, ranges?: TextRange[]): Promise<ParsedFile | null> {
  const l = await load(language);
  if (!l) return null;
  const tree = ranges ? l.parser.parse(rangedInput(text, ranges), null, { includedRanges: ranges }) : l.parser.parse(text);
  if (!tree) return null;
  return { tree, language, query: (source) => compiled(l, language, source), done: () => tree.delete() };
}

/** Compiles (once) a query for a language; QueryError naming the problem when it does not compile. */
export async function compiledQuery(language: Language, source: string): Promise<Query | null> {
  const l = await load(language);
  return l ? compiled(l, language, source) : null;
}

function compiled(l: LoadedLanguage, language: Language, source: string): Query {
  let q = l.queries.get(source);
  if (!q) {
    try {
      q = new (runtime!().Query)(l.language, source);
    } catch (error) {
      throw new QueryError(`the tree-sitter query does not compile for ${language}: ${(error as Error).message}`);
    }
    if (l.queries.size > 200) l.queries.clear();
    l.queries.set(source, q);
  }
  return q;
}

/** The nearest ancestor whose type is in `types`, or null. */
export function ancestor(node: Node, types: ReadonlySet<string>, stopAt?: ReadonlySet<string>): Node | null {
  for (let p = node.parent; p; p = p.parent) {
    if (types.has(p.type)) return p;
    if (stopAt?.has(p.type)) return null;
  }
  return null;
}

/** 1-based inclusive line range of a node. */
export function linesOf(node: Node): [number, number] {
  return [node.startPosition.row + 1, node.endPosition.row + 1];
}

/** The first lines of a node's text, bounded, as a finding shows it. */
export function excerpt(node: Node, maxLines = 3, maxChars = 240): string {
  const text = node.text.split('\n').slice(0, maxLines).join('\n');
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
