/**
 * Finding nodes from what an agent typed: an id, a path, `path:line`, a name or qualified name,
 * and, failing those, a lexical match. Pure functions over the graph (the engine delegates here).
 */
import { RELATION_CODE, type CodeGraph, type GraphNode, type NodeKind } from './graph.ts';
import type { LexicalIndex } from './lexical-index.ts';

const CONTAINS_CODE = RELATION_CODE.contains;
const SYMBOL_KINDS: readonly NodeKind[] = ['function', 'method', 'class', 'interface', 'type', 'section'];

/** A node found by `findNodes`, with how it was matched. */
export interface NodeMatch {
  node: GraphNode;
  score: number;
  via: 'id' | 'path' | 'path_line' | 'path_name' | 'label' | 'qualified_name' | 'seek';
}

/** What a lookup may consult beyond the graph: PageRank (tie-breaks) and the seek index (fallback). */
export interface LookupAids {
  pagerank(): Float64Array;
  lexical: LexicalIndex;
}

/**
 * Nodes for an id or free text: exact id, a path (or `path:line` → innermost symbol there),
 * an exact label (case-sensitive, then not), a qualified-name suffix (`Class.method`), then seek.
 */
export function findNodes(g: CodeGraph, text: string, options: { limit?: number; kinds?: readonly NodeKind[] }, aids: LookupAids): NodeMatch[] {
  const lookup = new Lookup(g, text, options, aids);
  if (lookup.found) return lookup.found;
  for (const _ of lookup.scan());
  return lookup.finish();
}

/**
 * `findNodes` in slices: the scan of every node's label (a typo scans them all: 16–34 ms on the
 * stdlib's 73K nodes) yields to `pace` every SCAN_STEP nodes, and the seek fallback runs in a turn
 * of its own.
 */
export async function findNodesPaced(g: CodeGraph, text: string, options: { limit?: number; kinds?: readonly NodeKind[] }, aids: LookupAids, pace: () => Promise<void>): Promise<NodeMatch[]> {
  const lookup = new Lookup(g, text, options, aids);
  if (lookup.found) return lookup.found;
  for (const _ of lookup.scan()) await pace();
  await pace();
  return lookup.finish();
}

/** Nodes between two looks at the pace in `findNodesPaced`. */
const SCAN_STEP = 1024;

/** One lookup: the cheap exact forms at construction (`found`), then the label scan, then the ranking or seek. */
class Lookup {
  found: NodeMatch[] | null = null;
  private readonly limit: number;
  private readonly kinds: Set<NodeKind> | null;
  private readonly q: string;
  private readonly pathLike: string;
  private readonly exact: NodeMatch[] = [];
  private readonly folded: NodeMatch[] = [];
  private readonly qualified: NodeMatch[] = [];

  constructor(
    private readonly g: CodeGraph,
    text: string,
    private readonly options: { limit?: number; kinds?: readonly NodeKind[] },
    private readonly aids: LookupAids,
  ) {
    this.limit = options.limit ?? 10;
    this.kinds = options.kinds?.length ? new Set(options.kinds) : null;
    this.q = text.trim();
    this.pathLike = this.q.replace(/^\.\//, '').replace(/\/+$/, '');
    if (!this.q) {
      this.found = [];
      return;
    }
    const byId = g.get(this.q);
    if (this.ok(byId)) {
      this.found = [{ node: byId, score: 1, via: 'id' }];
      return;
    }
    const lineMatch = /^(.+?):(\d+)(?::\d+)?$/.exec(this.pathLike);
    if (lineMatch) {
      const n = symbolAt(g, fileEndingWith(g, lineMatch[1]) ?? lineMatch[1], Number(lineMatch[2]));
      if (this.ok(n)) {
        this.found = [{ node: n, score: 1, via: 'path_line' }];
        return;
      }
    }
    const named = symbolByPathAndName(g, this.pathLike);
    if (this.ok(named)) {
      this.found = [{ node: named, score: 1, via: 'path_name' }];
      return;
    }
    for (const id of [`file:${this.pathLike}`, `module:${this.pathLike}`]) {
      const n = g.get(id);
      if (this.ok(n)) {
        this.found = [{ node: n, score: 1, via: 'path' }];
        return;
      }
    }
  }

  private ok(n: GraphNode | null): n is GraphNode {
    return n !== null && (!this.kinds || this.kinds.has(n.kind));
  }

  /** Labels and qualified names of every node (yields every SCAN_STEP nodes). */
  *scan(): Generator<void> {
    const { g, q, pathLike } = this;
    const pr = this.aids.pagerank();
    const lower = q.toLowerCase();
    const qualifiedSuffix = q.includes('.') || q.includes('::') ? q.replace(/::/g, '.') : null;
    let k = 0;
    for (const [i, n] of g.nodes()) {
      if (++k % SCAN_STEP === 0) yield;
      if (!this.ok(n)) continue;
      if (n.label === q || (n.kind === 'file' && n.path.endsWith(`/${pathLike}`))) this.exact.push({ node: n, score: 0.9 + 0.1 * (pr[i] ?? 0), via: 'label' });
      else if (n.label.length === lower.length && n.label.toLowerCase() === lower) this.folded.push({ node: n, score: 0.8 + 0.1 * (pr[i] ?? 0), via: 'label' });
      else if (qualifiedSuffix && n.qualifiedName && (n.qualifiedName === qualifiedSuffix || n.qualifiedName.endsWith(`.${qualifiedSuffix}`))) {
        this.qualified.push({ node: n, score: 0.85 + 0.1 * (pr[i] ?? 0), via: 'qualified_name' });
      }
    }
  }

  /** The scan's matches ranked, or seek's when it found none. */
  finish(): NodeMatch[] {
    const direct = [...this.exact, ...this.qualified, ...this.folded];
    if (direct.length) return direct.sort((a, b) => b.score - a.score || a.node.id.localeCompare(b.node.id)).slice(0, this.limit);
    const { g } = this;
    return this.aids.lexical
      .query(g, this.q, this.aids.pagerank(), { topK: this.limit, kinds: this.options.kinds })
      .map((h) => ({ node: g.get(h.id)!, score: h.score * 0.7, via: 'seek' as const }));
  }
}

/**
 * The innermost symbol spanning a line of a file (the file node when none does), or null.
 * Every symbol of the file is a candidate, not only those under a spanning parent: a Go method is
 * contained by its type node although its body lies outside the type declaration's lines.
 */
export function symbolAt(g: CodeGraph, path: string, line: number): GraphNode | null {
  const file = g.get(`file:${path}`);
  if (!file) return null;
  let best: GraphNode = file;
  const seen = new Set<number>();
  const stack = [g.indexOf(file.id)];
  while (stack.length) {
    g.forEachOut(stack.pop()!, (target, _w, rel) => {
      if (rel !== CONTAINS_CODE || seen.has(target)) return;
      const n = g.node(target)!;
      if (n.path !== path || n.kind === 'file' || n.kind === 'module') return;
      seen.add(target);
      stack.push(target);
      const spans = n.startLine <= line && line <= n.endLine;
      // Smallest span wins; on equal spans the later declaration (the nested one) does.
      if (spans && (best === file || n.endLine - n.startLine <= best.endLine - best.startLine)) best = n;
    });
  }
  return best;
}

/** The path of the file at `path`, or of the only file whose path ends with `/path`; else null. */
function fileEndingWith(g: CodeGraph, path: string): string | null {
  if (g.get(`file:${path}`)) return path;
  let found: string | null = null;
  for (const [, n] of g.nodes()) {
    if (n.kind !== 'file' || !n.path.endsWith(`/${path}`)) continue;
    if (found !== null) return null; // ambiguous: let the caller name the candidates
    found = n.path;
  }
  return found;
}

/** `path#Name` (a symbol id without its kind prefix) → the symbol, whatever its kind, or null. */
export function symbolByPathAndName(g: CodeGraph, text: string): GraphNode | null {
  const hash = text.indexOf('#');
  if (hash <= 0) return null;
  const path = fileEndingWith(g, text.slice(0, hash));
  if (path === null) return null;
  const name = text.slice(hash + 1);
  for (const kind of SYMBOL_KINDS) {
    const n = g.get(`${kind}:${path}#${name}`);
    if (n) return n;
  }
  return null;
}
