/**
 * Evidence anchors: what a claim cites (a file, a line range, a graph node) with the hash of the
 * cited text at the time, and the freshness check that re-reads that text now. Freshness is always
 * computed from the workspace, never stored as a flag.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphNode, GraphService } from '../graph/api.ts';

/** One cited piece of the workspace, as stored with a claim. */
export interface EvidenceAnchor {
  kind: 'node' | 'lines' | 'file';
  path: string;
  /** Graph node id (kind `node`). */
  node?: string;
  /** 1-based inclusive lines the hash covers (node and lines kinds). */
  lines?: [number, number];
  /** sha256 (16 hex) of the cited text when it was anchored. */
  hash: string;
  /** Lines anchors: a fingerprint of the first cited line, to find the range again when it moved. */
  head?: string;
}

/** Evidence as a caller gives it: `path`, `path:12-30`, a node id or name, or an object. */
export type EvidenceInput = string | { path?: string; node?: string; lines?: number[] };

/** What changed in one anchor since it was hashed. */
export interface EvidenceChange {
  evidence: string;
  what: 'content_changed' | 'node_gone' | 'file_gone' | 'lines_gone';
  lines_was?: [number, number];
  lines_now?: [number, number];
}

/** A cited line range whose text is unchanged but now sits at other lines (lines above it came or went). */
export interface EvidenceMove {
  evidence: string;
  lines_was: [number, number];
  lines_now: [number, number];
}

/** The freshness of a set of anchors: fresh, stale (with what changed) or unanchored (nothing to check). */
export interface Freshness {
  state: 'fresh' | 'stale' | 'unanchored';
  changed: EvidenceChange[];
  /** Line ranges found unchanged at other lines: still fresh. */
  moved?: EvidenceMove[];
}

/** Lines a moved-range search may join and hash at most (each window hashed costs its length). */
const MOVE_SEARCH_BUDGET = 20_000;

/** FNV-1a of a line (trimmed), stored with a line range to find its first line again cheaply. */
export function lineHead(line: string): string {
  let h = 0x811c9dc5;
  const text = line.trimEnd();
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16);
}

/**
 * Where a cited range's text sits now that lines above it came or went: the nearest window of the
 * same length whose hash is the anchor's, searched outward from the old start (windows whose first
 * line is not `head`, when the anchor has one, are skipped unhashed); null when none is found within
 * the search budget.
 */
export function movedRange(lines: string[], from: number, to: number, hash: string, head?: string): [number, number] | null {
  const length = to - from + 1;
  const last = lineCount(lines) - length + 1;
  if (length < 1 || last < 1) return null;
  let budget = MOVE_SEARCH_BUDGET;
  for (let d = 1; from - d >= 1 || from + d <= last; d++) {
    for (const i of [from - d, from + d]) {
      if (i < 1 || i > last || (head !== undefined && lineHead(lines[i - 1]) !== head)) continue;
      if ((budget -= length) < 0) return null;
      if (textHash(slice(lines, i, i + length - 1)) === hash) return [i, i + length - 1];
    }
  }
  return null;
}

/** sha256 of a text, 16 hex characters (collisions are irrelevant at claim scale). */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A short label of an anchor, as shown in results and Markdown. */
export function anchorLabel(a: EvidenceAnchor): string {
  if (a.kind === 'node') return a.node!;
  if (a.kind === 'lines') return `${a.path}:${a.lines![0]}-${a.lines![1]}`;
  return a.path;
}

/** Reads workspace files once per request, through the engine's workspace guard. */
export class FileReader {
  private readonly cache = new Map<string, string[] | null>();
  constructor(private readonly graph: GraphService) {}

  /** The file's lines, or null when it is gone (or not a file). */
  lines(path: string): string[] | null {
    if (this.cache.has(path)) return this.cache.get(path)!;
    let lines: string[] | null = null;
    try {
      lines = this.graph.engine.readFile(path).content.split('\n');
    } catch {
      lines = null;
    }
    this.cache.set(path, lines);
    return lines;
  }
}

/** The number of lines of a file read as `lines` (the empty piece after a final newline is no line). */
export function lineCount(lines: readonly string[]): number {
  return lines.length > 0 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

function slice(lines: string[], from: number, to: number): string {
  return lines.slice(from - 1, to).map((l) => l.trimEnd()).join('\n');
}

function isFile(graph: GraphService, rel: string): boolean {
  try {
    return statSync(graph.engine.resolvePath(rel).absolute).isFile();
  } catch {
    return false;
  }
}

function notFound(ref: string): never {
  throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `evidence "${ref}" is neither a workspace file, a line range of one, nor a graph node`, {
    hint: 'cite a repo-relative file ("src/a.ts"), lines ("src/a.ts:10-20") or a node id from seek',
    data: { evidence: ref },
  });
}

/**
 * The node a piece of evidence names: an id, a path form, or a symbol name that names exactly one
 * node with that exact case (the graph's lookup also folds case and ranks same-named symbols; a
 * claim pinned to the wrong one would go stale on unrelated code). GRAPH_NODE_NOT_FOUND, naming the
 * candidates' ids, otherwise.
 */
export function pinNode(graph: GraphService, text: string): GraphNode {
  const matches = graph.engine.findNodes(text, { limit: 12 });
  const top = matches[0];
  if (!top || top.via === 'seek') return graph.node(text); // the graph's not-found error, with its did-you-mean
  if (top.via !== 'label' && top.via !== 'qualified_name') return top.node;
  const dotted = text.replace(/::/g, '.');
  const exact = matches.filter((m) => m.via !== 'seek' && (m.node.label === text || m.node.qualifiedName === dotted || (m.node.qualifiedName?.endsWith(`.${dotted}`) ?? false)));
  if (exact.length === 1) return exact[0].node;
  const candidates = (exact.length ? exact : matches.filter((m) => m.via !== 'seek')).map((m) => m.node.id);
  throw new M1ndError(
    ErrorCodes.GRAPH_NODE_NOT_FOUND,
    exact.length ? `evidence "${text}" names ${exact.length}${exact.length >= 12 ? ' or more' : ''} symbols: cite one by id` : `evidence "${text}" names no symbol with that exact name`,
    { hint: `cite a node id, e.g. ${candidates.slice(0, 5).map((id) => `"${id}"`).join(', ')}`, data: { evidence: text, candidates: candidates.slice(0, 12) } },
  );
}

/** Anchors one piece of evidence now; PATH_ESCAPE outside the workspace, PATH_NOT_FOUND / GRAPH_NODE_NOT_FOUND when missing. */
export function anchorEvidence(graph: GraphService, files: FileReader, input: EvidenceInput): EvidenceAnchor {
  const engine = graph.engine;
  const spec = typeof input === 'string' ? { text: input.trim() } : { text: '', ...input };
  const ref = typeof input === 'string' ? input : JSON.stringify(input);
  const nodeAnchor = (id: string): EvidenceAnchor => {
    const node = engine.getNode(id)!;
    const lines = files.lines(node.path);
    if (!lines) notFound(ref);
    const whole = node.kind === 'file' || node.endLine < 1;
    const range: [number, number] = whole ? [1, lineCount(lines)] : [node.startLine, node.endLine];
    // A whole file is hashed over all of its text (a final newline too), as anchors always were.
    return { kind: 'node', path: node.path, node: node.id, lines: range, hash: textHash(whole ? slice(lines, 1, lines.length) : slice(lines, range[0], range[1])) };
  };
  const pathAnchor = (path: string, range?: number[]): EvidenceAnchor => {
    // The guard throws PATH_ESCAPE for `..`, absolute paths elsewhere and symlinks out.
    const rel = graph.run(() => engine.resolvePath(path)).relative;
    if (!isFile(graph, rel)) notFound(ref);
    const lines = files.lines(rel);
    if (!lines) notFound(ref);
    if (!range) return { kind: 'file', path: rel, hash: textHash(lines.join('\n')) };
    const [from, to] = [range[0], range[1] ?? range[0]];
    if (to < from) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `evidence lines ${from}-${to} end before they start`, { hint: `cite lines as first-last, e.g. ${rel}:${to}-${from}` });
    }
    if (!(from >= 1 && to <= lineCount(lines))) {
      throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `evidence lines ${from}-${to} are outside ${rel} (${lineCount(lines)} lines)`, { hint: `cite lines between 1 and ${lineCount(lines)}`, data: { lines: lineCount(lines) } });
    }
    return { kind: 'lines', path: rel, lines: [from, to], hash: textHash(slice(lines, from, to)), head: lineHead(lines[from - 1]) };
  };

  if (spec.node) return nodeAnchor(pinNode(graph, spec.node).id);
  if (spec.path) return pathAnchor(spec.path, spec.lines);
  const text = spec.text;
  if (!text) notFound(ref);
  if (engine.getNode(text)) return nodeAnchor(text);
  const ranged = /^(.+?):(\d+)(?:-(\d+))?$/.exec(text);
  const pathPart = ranged ? ranged[1] : text;
  const rel = graph.run(() => engine.resolvePath(pathPart)).relative;
  if (isFile(graph, rel)) return pathAnchor(rel, ranged ? [Number(ranged[2]), Number(ranged[3] ?? ranged[2])] : undefined);
  // A name or qualified name of a symbol (never a loose text match: that would pin an unrelated node).
  try {
    return nodeAnchor(pinNode(graph, text).id);
  } catch (error) {
    // A path (a slash, a line suffix, a lower-case extension) that names no file: say so, with the files it is near.
    if (!(ranged || pathPart.includes('/') || /\.[a-z0-9]{1,8}$/.test(pathPart))) throw error;
    throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `evidence "${text}" names no file of the workspace (nor a graph node)`, {
      hint: engine.missingFileHint(pathPart),
      data: { evidence: text },
    });
  }
}

/** Re-reads every anchor and says what changed since it was hashed. */
export function checkFreshness(graph: GraphService, files: FileReader, anchors: readonly EvidenceAnchor[]): Freshness {
  if (anchors.length === 0) return { state: 'unanchored', changed: [] };
  const changed: EvidenceChange[] = [];
  const moved: EvidenceMove[] = [];
  for (const a of anchors) {
    const evidence = anchorLabel(a);
    if (a.kind === 'node') {
      const node = graph.engine.getNode(a.node!);
      if (!node) {
        changed.push({ evidence, what: 'node_gone', lines_was: a.lines });
        continue;
      }
      const lines = files.lines(node.path);
      if (!lines) {
        changed.push({ evidence, what: 'file_gone', lines_was: a.lines });
        continue;
      }
      const whole = node.kind === 'file' || node.endLine < 1;
      const now: [number, number] = whole ? [1, lineCount(lines)] : [node.startLine, node.endLine];
      if (textHash(whole ? slice(lines, 1, lines.length) : slice(lines, now[0], now[1])) !== a.hash) changed.push({ evidence, what: 'content_changed', lines_was: a.lines, lines_now: now });
      continue;
    }
    const lines = files.lines(a.path);
    if (!lines) {
      changed.push({ evidence, what: 'file_gone' });
      continue;
    }
    if (a.kind === 'file') {
      if (textHash(lines.join('\n')) !== a.hash) changed.push({ evidence, what: 'content_changed', lines_now: [1, lineCount(lines)] });
      continue;
    }
    const [from, to] = a.lines!;
    if (to <= lineCount(lines) && textHash(slice(lines, from, to)) === a.hash) continue;
    // Lines inserted or removed above the range move it without changing it.
    const now = movedRange(lines, from, to, a.hash, a.head);
    if (now) moved.push({ evidence, lines_was: [from, to], lines_now: now });
    else if (to > lineCount(lines)) changed.push({ evidence, what: 'lines_gone', lines_was: a.lines });
    else changed.push({ evidence, what: 'content_changed', lines_was: a.lines, lines_now: a.lines });
  }
  return { state: changed.length ? 'stale' : 'fresh', changed, ...(moved.length ? { moved } : {}) };
}

/** The anchor again, hashed over its current text (re-verification); null when its target is gone. */
export function reanchor(graph: GraphService, files: FileReader, a: EvidenceAnchor): EvidenceAnchor | null {
  try {
    if (a.kind === 'node') return anchorEvidence(graph, files, { node: a.node! });
    if (a.kind === 'file') return anchorEvidence(graph, files, { path: a.path });
    // A range whose text moved is re-anchored where that text is now, not over what took its old lines.
    const lines = files.lines(a.path);
    const [from, to] = a.lines!;
    const same = lines !== null && to <= lineCount(lines) && textHash(slice(lines, from, to)) === a.hash;
    const now = lines && !same ? movedRange(lines, from, to, a.hash, a.head) : null;
    return anchorEvidence(graph, files, { path: a.path, lines: now ?? a.lines });
  } catch {
    return null;
  }
}
