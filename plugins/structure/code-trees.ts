/**
 * Syntax trees for the scans: one tree-sitter parser per language (the graph engine's grammars,
 * through its public entry), compiled queries cached per language and source, and the small node
 * helpers the rules share. Trees are deleted by the caller right after use (WASM memory).
 */
import { Query, type Language as TsLanguage, type Node, type Parser, type Tree } from 'web-tree-sitter';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { createParser, loadGrammar, type GrammarName, type Language } from '../graph/api.ts';

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

/** Languages the scans parse. */
export const CODE_LANGUAGES = Object.keys(GRAMMAR) as Language[];

interface LoadedLanguage {
  language: TsLanguage;
  parser: Parser;
  queries: Map<string, Query>;
}
const loaded = new Map<Language, Promise<LoadedLanguage>>();

async function load(language: Language): Promise<LoadedLanguage | null> {
  const grammar = GRAMMAR[language];
  if (!grammar) return null;
  let pending = loaded.get(language);
  if (!pending) {
    pending = loadGrammar(grammar).then((lang) => ({ language: lang, parser: createParser(lang), queries: new Map() }));
    pending.catch(() => loaded.delete(language));
    loaded.set(language, pending);
  }
  return pending;
}

/** A parsed file; `done()` frees the tree. */
export interface ParsedFile {
  tree: Tree;
  language: Language;
  query(source: string): Query;
  done(): void;
}

/** Parses `text` as `language`; null for a language the scans do not parse. */
export async function parseCode(language: Language, text: string): Promise<ParsedFile | null> {
  const l = await load(language);
  if (!l) return null;
  const tree = l.parser.parse(text);
  if (!tree) return null;
  return { tree, language, query: (source) => compiled(l, language, source), done: () => tree.delete() };
}

/** Compiles (once) a query for a language; a bad query is M1ND_ERR_CALL_INVALID_ARGS naming the problem. */
export async function compileQuery(language: Language, source: string): Promise<Query | null> {
  const l = await load(language);
  return l ? compiled(l, language, source) : null;
}

function compiled(l: LoadedLanguage, language: Language, source: string): Query {
  let q = l.queries.get(source);
  if (!q) {
    try {
      q = new Query(l.language, source);
    } catch (error) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `the tree-sitter query does not compile for ${language}: ${(error as Error).message}`, {
        hint: 'fix the S-expression (node names of this language\'s grammar, balanced parentheses, @captures), or pass `keywords` instead',
      });
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
