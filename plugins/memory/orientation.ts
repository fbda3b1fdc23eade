/**
 * What orient, north and delegate share: the nodes a task activates (seek seeds spread one hop
 * over calls, imports and inheritance, through the graph service) and the claims relevant to them,
 * ranked fresh first with stale ones marked.
 */
import type { GraphService } from '../graph/api.ts';
import type { Claim } from './claims.ts';
import type { ClaimView, MemoryService } from './service.ts';
import { nodeAnchorFiles } from './settle.ts';
import { coverage, words } from './similarity.ts';

/** One activated node. */
export interface ActivatedNode {
  id: string;
  kind: string;
  path: string;
  lines: [number, number];
  score: number;
  /** `seed` (matched the task) or the relation it was reached by. */
  via: string;
}

// Relations that carry a task from a symbol to its collaborators (not structure or co-change noise).
const SPREAD = new Set(['calls', 'imports', 'inherits', 'implements', 'references']);
const HOP_DECAY = 0.5;
/** Claims whose freshness one packet computes at most (each costs file reads); a 2K-token packet shows fewer. */
const MAX_CANDIDATES = 24;
// Task words that say nothing about what a claim is about.
const STOP = new Set(['the', 'a', 'an', 'and', 'or', 'of', 'to', 'in', 'on', 'for', 'with', 'how', 'what', 'why', 'its', 'it', 'is', 'are', 'be', 'this', 'that', 'change', 'fix', 'make', 'update', 'find', 'from', 'by', 'at', 'as']);

/** The top nodes a task activates: seek seeds, then one hop of spread. */
export function activate(engine: GraphService['engine'], task: string, topK: number, scope?: string): ActivatedNode[] {
  const seeds = engine.seek(task, { topK: Math.max(topK, 5), ...(scope ? { scope } : {}) }).results;
  const best = new Map<string, ActivatedNode>();
  const offer = (id: string, score: number, via: string) => {
    const n = engine.getNode(id);
    if (!n || (scope && !n.path.startsWith(scope))) return;
    const prev = best.get(id);
    if (prev && prev.score >= score) return;
    best.set(id, { id, kind: n.kind, path: n.path, lines: [n.startLine, n.endLine], score: Math.round(score * 1000) / 1000, via });
  };
  for (const s of seeds) offer(s.id, s.score, 'seed');
  for (const s of seeds) {
    for (const e of engine.graph.outgoing(s.id)) if (SPREAD.has(e.relation)) offer(e.target, s.score * HOP_DECAY * e.weight, e.relation);
    for (const e of engine.graph.incoming(s.id)) if (SPREAD.has(e.relation)) offer(e.source, s.score * HOP_DECAY * e.weight, `${e.relation} (caller)`);
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, topK);
}

/**
 * The nodes a task activates and the claims relevant to them, read after the graph has taken in
 * the cited and activated files as they are on disk (files edited while no server watched).
 */
export async function orientOn(memory: MemoryService, engine: GraphService['engine'], task: string, topK: number, scope: string | undefined, claims: readonly Claim[]): Promise<{ nodes: ActivatedNode[]; claims: RankedClaim[] }> {
  let nodes = activate(engine, task, topK, scope);
  if ((await memory.settle([...nodeAnchorFiles(claims), ...nodes.map((n) => n.path)])).length > 0) nodes = activate(engine, task, topK, scope);
  return { nodes, claims: relevantClaims(memory, claims, task, nodes) };
}

/**
 * True when a claim's anchor is about this node: the node itself, its whole file, or a node or line
 * range around or across its lines. A claim on another function of the same file says nothing of it.
 */
export function anchorCovers(anchor: Claim['evidence'][number], node: Pick<ActivatedNode, 'id' | 'path' | 'lines'>): boolean {
  if (anchor.node === node.id) return true;
  if (anchor.path !== node.path) return false;
  if (anchor.kind === 'file' || !anchor.lines) return true;
  const [from, to] = anchor.lines;
  return node.lines[0] < 1 || (from <= node.lines[1] && to >= node.lines[0]);
}

/** A relevant claim with its relevance and current freshness. */
export interface RankedClaim {
  claim: Claim;
  relevance: number;
  view: ClaimView;
}

/**
 * Claims relevant to a task and its activated nodes: evidence on an activated node (its score), in
 * an activated node's file (half), plus the share of task words the claim text has. Fresh claims
 * rank first; stale ones follow, marked with what changed; superseded claims are left out.
 */
export function relevantClaims(memory: MemoryService, claims: readonly Claim[], task: string, nodes: readonly ActivatedNode[]): RankedClaim[] {
  const byNode = new Map(nodes.map((n) => [n.id, n.score]));
  const byFile = new Map<string, number>();
  for (const n of nodes) byFile.set(n.path, Math.max(byFile.get(n.path) ?? 0, n.score));
  const taskWords = new Set([...words(task)].filter((w) => !STOP.has(w)));
  const scored: { claim: Claim; relevance: number }[] = [];
  for (const c of claims) {
    if (c.superseded_by) continue;
    let anchor = 0;
    for (const e of c.evidence) {
      if (e.node && byNode.has(e.node)) anchor = Math.max(anchor, byNode.get(e.node)!);
      else if (byFile.has(e.path)) anchor = Math.max(anchor, byFile.get(e.path)! / 2);
    }
    const textWords = c.topic ? new Set([...memory.claims.wordsOf(c), ...words(c.topic)]) : memory.claims.wordsOf(c);
    const lexical = coverage(taskWords, textWords) * 0.5;
    const relevance = anchor + lexical;
    if (relevance > 0.05) scored.push({ claim: c, relevance: Math.round(relevance * 1000) / 1000 });
  }
  scored.sort((a, b) => b.relevance - a.relevance);
  const top = scored.slice(0, MAX_CANDIDATES);
  const fresh = memory.freshness(top.map((s) => s.claim));
  const ranked = top.map((s) => ({ ...s, view: memory.view(s.claim, fresh.get(s.claim.id)!) }));
  const order = { fresh: 0, unanchored: 1, stale: 2 } as const;
  return ranked.sort((a, b) => order[a.view.freshness] - order[b.view.freshness] || b.relevance - a.relevance);
}
