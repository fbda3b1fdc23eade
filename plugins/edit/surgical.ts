/**
 * The surgical context of one file, shared by `surgical_context` and `surgical_context_v2`: its
 * line-numbered content within a token budget, its symbols with line ranges, and its graph
 * neighbourhood — optionally narrowed to one symbol's slice.
 */
import { countTokens, ErrorCodes, M1ndError, packToTokenBudget, type CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { GraphNode } from '../graph/api.ts';
import { readFileBytes } from './file-bytes.ts';
import { neighbourhoodOf, type Neighbourhood } from './neighbourhood.ts';

/** Lines per chunk when packing a file's content into a token budget (packing is by whole chunks). */
const CHUNK_LINES = 40;

export interface SurgicalArgs {
  file_path: string;
  symbol?: string;
  radius: number;
  include_tests: boolean;
  token_budget: number;
}

/** A symbol as the edit verbs show it. */
export interface SymbolView {
  id: string;
  kind: string;
  label: string;
  lines: [number, number];
}

export interface SurgicalContext {
  file_path: string;
  content_hash: string;
  total_lines: number;
  /** Lines shown (1-based, inclusive). */
  lines: [number, number];
  content: string;
  truncated: boolean;
  symbols: SymbolView[];
  focus: SymbolView | null;
  neighbourhood: Neighbourhood;
  in_graph: boolean;
  /** Set when the symbol's name also names other symbols of the file (the focus is one of them). */
  note?: string;
}

/** Numbered lines (`  12│text`) starting at `first`. */
export function numbered(lines: readonly string[], first: number, width = String(first + lines.length - 1).length): string {
  return lines.map((l, i) => `${String(first + i).padStart(width)}│${l}`).join('\n');
}

/** A file's lines without the empty string a trailing newline leaves. */
export function splitLines(content: string): string[] {
  const all = content.split('\n');
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  return all;
}

/** Packs numbered lines `[first, last]` into a token budget by whole chunks, first chunk always kept. */
export function packLines(all: readonly string[], first: number, last: number, budget: number): { text: string; shown: [number, number]; truncated: boolean; tokens: number } {
  const width = String(last).length;
  const chunks: { text: string; end: number }[] = [];
  for (let start = first; start <= last; start += CHUNK_LINES) {
    const end = Math.min(last, start + CHUNK_LINES - 1);
    chunks.push({ text: numbered(all.slice(start - 1, end), start, width), end });
  }
  const { kept, report } = packToTokenBudget(chunks, budget, (c) => countTokens(c.text));
  const end = kept.length ? kept[kept.length - 1].end : first - 1;
  return { text: kept.map((c) => c.text).join('\n'), shown: [first, end], truncated: report.dropped > 0, tokens: report.used_tokens };
}

/**
 * A symbol of the file named by id, qualified name or label, with the other symbols the name also
 * names (overloads `name#2`…, same-named methods of other classes); STATE_NOT_FOUND listing the
 * file's symbols otherwise.
 */
function pickSymbol(symbols: GraphNode[], name: string, filePath: string): { hit: GraphNode; others: GraphNode[] } {
  const byId = symbols.find((s) => s.id === name);
  if (byId) return { hit: byId, others: [] };
  const overload = (q: string | undefined) => q !== undefined && (q === name || (q.startsWith(`${name}#`) && /^\d+$/.test(q.slice(name.length + 1))));
  const named = symbols.filter((s) => overload(s.qualifiedName) || s.label === name);
  const hit = symbols.find((s) => s.qualifiedName === name) ?? named[0];
  if (hit) return { hit, others: named.filter((s) => s !== hit) };
  throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `no symbol "${name}" in ${filePath}`, {
    hint: `pass one of: ${symbols.slice(0, 12).map((s) => s.qualifiedName ?? s.label).join(', ') || '(the file has no symbols in the graph)'}`,
  });
}

/** A symbol as shown. */
export function symbolView(n: GraphNode): SymbolView {
  return { id: n.id, kind: n.kind, label: n.qualifiedName ?? n.label, lines: [n.startLine, n.endLine] };
}

/** Builds the surgical context of a file (the graph is brought up to date on it first). */
export async function surgicalContext(graph: GraphService, args: SurgicalArgs, call: CallContext): Promise<SurgicalContext> {
  await graph.fresh();
  const file = readFileBytes(graph, args.file_path);
  if (!graph.engine.graph.get(`file:${file.path}`) && graph.writable) await graph.reingestPaths([file.path], call.signal);
  const all = splitLines(file.text);
  const symbols = graph.fileSymbols(file.path);
  const picked = args.symbol ? pickSymbol(symbols, args.symbol, file.path) : null;
  const focusNode = picked?.hit ?? null;
  const first = focusNode ? focusNode.startLine : 1;
  const last = focusNode ? Math.min(focusNode.endLine, all.length) : all.length;
  const packed = all.length ? packLines(all, first, last, args.token_budget) : { text: '', shown: [0, 0] as [number, number], truncated: false, tokens: 0 };
  const focusIds = focusNode ? [focusNode.id, ...symbols.filter((s) => s.startLine >= focusNode.startLine && s.endLine <= focusNode.endLine && s.id !== focusNode.id).map((s) => s.id)] : symbols.map((s) => s.id);
  const inGraph = !!graph.engine.graph.get(`file:${file.path}`);
  return {
    file_path: file.path,
    content_hash: file.hash,
    total_lines: all.length,
    lines: packed.shown,
    content: packed.text,
    truncated: packed.truncated,
    symbols: symbols.map(symbolView),
    focus: focusNode ? symbolView(focusNode) : null,
    neighbourhood: neighbourhoodOf(graph, file.path, focusIds.length ? focusIds : [`file:${file.path}`], args.radius, args.include_tests),
    in_graph: inGraph,
    ...(picked && picked.others.length
      ? { note: `"${args.symbol}" names ${picked.others.length + 1} symbols of ${file.path}; shown: ${symbolView(picked.hit).label}. Pass another's qualified name or id: ${picked.others.slice(0, 12).map((o) => symbolView(o).label).join(', ')}${picked.others.length > 12 ? ', …' : ''}` }
      : {}),
  };
}
