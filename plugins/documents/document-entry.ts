/**
 * One converted document as graph nodes (graph-nodes.ts puts them in the graph): its `file` node and
 * one `section` node per heading made from the canonical Markdown, what it mentions, and the keys its
 * bindings depend on (a graph change naming none of them leaves its bindings as they were).
 */
import { posix } from 'node:path';
import { extractMarkdown, fileNodeId, symbolNodeId, type GraphNode } from '../graph/api.ts';
import type { Binding } from './bindings.ts';
import { artefactVersion, type DocumentRecord } from './document-book.ts';
import { fileSymbol, readMentions, type Mention } from './mentions.ts';

/** Characters of a section's own text kept as its `doc` (what verbs show). */
export const DOC_CHARS = 1000;
/** Characters of a section's own text indexed for seek (its node's `text`, never shown): a term deep in a long section is found. */
export const INDEXED_TEXT_CHARS = 32_768;
/** One document's nodes, made once per source version (the same objects are re-used, so seek re-indexes nothing). */
export interface DocumentEntry {
  path: string;
  /** The artefact it was made from (`artefactVersion`: source hash, converter revision). */
  hash: string;
  /** What the Markdown names (read once per source version). */
  mentions: Mention[];
  /** What its bindings depend on (`mentionKeys`): a graph change touching none of them leaves them as they were. */
  keys: Set<string>;
  /** Its bindings against the graph of the last apply. */
  bound: Binding[] | null;
  file: GraphNode;
  sections: { node: GraphNode; parent: string | null; startLine: number; endLine: number }[];
}

/** The nodes of a document's canonical Markdown. */
export function entryOf(record: DocumentRecord): DocumentEntry {
  const { path, markdown } = record;
  const lines = markdown.split('\n');
  const extraction = extractMarkdown(path, markdown);
  const symbols = extraction.symbols.filter((s) => s.kind === 'section');
  const own = (from: number, to: number) => fold(lines.slice(from, to).join('\n'));
  const firstHeading = symbols.length ? symbols[0].startLine - 1 : lines.length;
  const file: GraphNode = { id: fileNodeId(path), kind: 'file', label: posix.basename(path), path, startLine: 1, endLine: Math.max(1, lines.length), language: 'markdown' };
  const preamble = own(0, firstHeading);
  if (preamble) Object.assign(file, textFields(preamble));
  const seen = new Map<string, number>();
  const sections = symbols.map((s, k) => {
    const n = (seen.get(s.qualifiedName) ?? 0) + 1;
    seen.set(s.qualifiedName, n);
    const q = n === 1 ? s.qualifiedName : `${s.qualifiedName}~${n}`;
    // Its own text: from under its heading to the next heading (a child's text is the child's).
    const next = k + 1 < symbols.length ? Math.min(symbols[k + 1].startLine - 1, s.endLine) : s.endLine;
    const node: GraphNode = { id: symbolNodeId('section', path, q), kind: 'section', label: s.name, path, startLine: 0, endLine: 0, language: 'markdown', qualifiedName: q };
    const text = own(s.startLine, next);
    if (text) Object.assign(node, textFields(text));
    return { node, parent: s.parent ?? null, startLine: s.startLine, endLine: s.endLine };
  });
  const mentions = readMentions(markdown);
  return { path, hash: artefactVersion(record), mentions, keys: mentionKeys(path, mentions), bound: null, file, sections };
}

/**
 * What a document's bindings depend on in the graph (bindings.ts): a symbol mention the nodes
 * labelled with its last name (`label:`), a path mention the file it names from the root or the
 * document's folder (`path:`), a command the manifest, Makefile or script file it may run.
 */
function mentionKeys(docPath: string, mentions: readonly Mention[]): Set<string> {
  const keys = new Set<string>();
  const docDir = docPath.includes('/') ? docPath.slice(0, docPath.lastIndexOf('/') + 1) : '';
  for (const m of mentions) {
    if (m.kind === 'symbol') {
      // A symbol qualified by its file (`src/a.ts#f`): its name's label, and the file it is looked up in.
      const qualified = fileSymbol(m.text);
      const dotted = (qualified?.name ?? m.text).replace(/\(\)$/, '').replace(/::|#/g, '.');
      keys.add(`label:${dotted.slice(dotted.lastIndexOf('.') + 1)}`);
      if (qualified) {
        keys.add(`path:${normalizePath(qualified.file)}`);
        keys.add(`path:${normalizePath(docDir + qualified.file)}`);
      }
    } else if (m.kind === 'path') {
      keys.add(`path:${m.text}`);
      keys.add(`path:${normalizePath(docDir + m.text)}`);
    } else {
      keys.add('path:package.json');
      keys.add('path:Makefile');
      for (const word of m.text.split(/\s+/).slice(0, 3)) keys.add(`path:${normalizePath(word)}`);
    }
  }
  return keys;
}

/** Whether two node objects bind the same (bindings.ts reads a node's id, kind, label, qualified name and path). */
export function sameIdentity(a: GraphNode, b: GraphNode): boolean {
  return a.id === b.id && a.kind === b.kind && a.label === b.label && a.qualifiedName === b.qualifiedName && a.path === b.path;
}

/** The keys of `mentionKeys` a node answers to: its label (symbols), its path and base name (files: a bare file name binds to them). */
export function nodeKeys(n: GraphNode, into: Set<string>): void {
  if (n.kind === 'file') {
    into.add(`path:${n.path}`);
    into.add(`path:${posix.basename(n.path)}`);
  } else if (n.kind !== 'section') into.add(`label:${n.label}`);
}

function normalizePath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') out.pop();
    else if (part !== '.' && part !== '') out.push(part);
  }
  return out.join('/');
}

/** A node's shown `doc` (cut at DOC_CHARS) and its indexed `text` (cut at INDEXED_TEXT_CHARS). */
function textFields(text: string): { doc: string; text: string } {
  const cut = (max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
  return { doc: cut(DOC_CHARS), text: cut(INDEXED_TEXT_CHARS) };
}

/** Whitespace-folded text without Markdown markers. */
function fold(text: string): string {
  return text
    .replace(/^```.*$/gm, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*>#|]+/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
