/**
 * Ranking weights learned from agents' feedback (`learn`): a bias per node, an association between
 * query words and nodes, and multipliers on edges between nodes confirmed together. Shared by every
 * agent of the workspace and persisted in the store's `learned` memory namespace (one revision
 * counter tells other processes to reload). Querying never writes here: only `learn` does.
 *
 * How ranking verbs apply it: score × exp(bias) × exp(2.5 × association(query words, node)), and
 * propagation multiplies an edge's weight by its learned factor (the product capped at 1).
 */
import type { CodeGraphEngine } from './engine/engine.ts';
import type { CodeGraph, GraphNode } from './engine/graph.ts';

export const LEARNED_NAMESPACE = 'learned';

export type Feedback = 'correct' | 'wrong' | 'partial';

/** What the store keeps per node that received feedback. */
export interface LearnedNode {
  bias: number;
  correct: number;
  wrong: number;
  partial: number;
  updatedAt: number;
  /** Where the node was when feedback was given (evidence for cross_verify). */
  path: string;
  lines: [number, number];
  lastQuery: string;
}

/** One feedback event, kept for drift and reports (the newest MAX_EVENTS). */
export interface FeedbackEvent {
  at: number;
  agent: string;
  query: string;
  feedback: Feedback;
  nodes: string[];
  strength: number;
}

export interface LearnInput {
  agent: string;
  query: string;
  /** Query words (already tokenized). */
  words: string[];
  feedback: Feedback;
  nodes: GraphNode[];
  strength: number;
  /** Existing edges between the given nodes (and their members), as [source id, target id]. */
  pairs: [string, string][];
}

export interface LearnReport {
  nodes: { id: string; bias: [before: number, after: number]; association: [before: number, after: number] }[];
  edges: { source: string; target: string; factor: [before: number, after: number] }[];
  revision: number;
}

/** Learned weights at one moment: bias and last update per node, factor per "source\u0001target" edge. */
export interface LearnedSnapshot {
  revision: number;
  nodes: Map<string, number>;
  nodeUpdatedAt: Map<string, number>;
  edges: Map<string, number>;
}
interface StoredSnapshot {
  revision: number;
  nodes: Record<string, number>;
  nodeUpdatedAt: Record<string, number>;
  edges: Record<string, number>;
}
const CHECKPOINT_PREFIX = 'checkpoint:';

/** Bias per node stays within ±MAX_BIAS (×0.5 … ×2). */
export const MAX_BIAS = 0.7;
const MAX_ASSOCIATION = 1;
const MAX_TERM_NODES = 200;
const MAX_EVENTS = 500;
const EDGE_FACTOR_RANGE: [number, number] = [0.25, 3];
const SEP = '\u0001';

/** The learned weights of one workspace (see the module comment). */
export class LearnedWeights {
  private rev = -1;
  private nodeMap = new Map<string, LearnedNode>();
  private terms = new Map<string, Map<string, number>>();
  private edges = new Map<string, { factor: number; updatedAt: number }>();
  private edgeCache: { version: number; rev: number; graph: CodeGraph; factors: Float32Array | null } | null = null;

  constructor(
    private readonly engine: CodeGraphEngine,
    private readonly writable: boolean,
  ) {}

  /** Reloads from the store when another process (or this one) changed it; one indexed read otherwise. */
  private sync(): void {
    let rev: number;
    try {
      rev = Number(this.engine.memory.get<number>(LEARNED_NAMESPACE, 'rev')?.value ?? 0);
    } catch {
      return; // no store (never opened): nothing learned yet
    }
    if (rev === this.rev) return;
    const mem = this.engine.memory;
    this.nodeMap = new Map(mem.list<LearnedNode>(LEARNED_NAMESPACE, 'node:', 1_000_000).map((e) => [e.key.slice(5), e.value]));
    this.terms = new Map(mem.list<Record<string, number>>(LEARNED_NAMESPACE, 'term:', 1_000_000).map((e) => [e.key.slice(5), new Map(Object.entries(e.value))]));
    this.edges = new Map(mem.list<{ factor: number; updatedAt: number }>(LEARNED_NAMESPACE, 'edge:', 1_000_000).map((e) => [e.key.slice(5), e.value]));
    this.rev = rev;
    this.edgeCache = null;
  }

  /** The store revision of what is loaded (0 = nothing learned). */
  get revision(): number {
    this.sync();
    return Math.max(0, this.rev);
  }

  /** True when any feedback was ever recorded. */
  get empty(): boolean {
    this.sync();
    return this.nodeMap.size === 0 && this.terms.size === 0 && this.edges.size === 0;
  }

  /** The learned record of a node, if any. */
  node(id: string): LearnedNode | undefined {
    this.sync();
    return this.nodeMap.get(id);
  }

  /** Every node with learned feedback. */
  nodes(): [string, LearnedNode][] {
    this.sync();
    return [...this.nodeMap];
  }

  /** Mean association of the query words with a node, in [-1, 1] (0 when unknown). */
  association(words: readonly string[], id: string): number {
    this.sync();
    if (words.length === 0 || this.terms.size === 0) return 0;
    let sum = 0;
    for (const w of words) sum += this.terms.get(w)?.get(id) ?? 0;
    return sum / words.length;
  }

  /** The ranking multiplier for a node under a query: exp(bias) × exp(2.5 × association). */
  factor(words: readonly string[], id: string): number {
    return this.scorer(words)(id);
  }

  /** A function giving `factor(words, id)` for many nodes, reading the store once (for ranking loops). */
  scorer(words: readonly string[]): (id: string) => number {
    this.sync();
    if (this.nodeMap.size === 0 && this.terms.size === 0) return () => 1;
    const assoc = new Map<string, number>();
    for (const w of words) for (const [id, v] of this.terms.get(w) ?? []) assoc.set(id, (assoc.get(id) ?? 0) + v / words.length);
    const nodes = this.nodeMap;
    return (id) => {
      const bias = nodes.get(id)?.bias ?? 0;
      const a = assoc.get(id) ?? 0;
      return bias === 0 && a === 0 ? 1 : Math.exp(bias + 2.5 * a);
    };
  }

  /** Nodes the query words are associated with (positive or negative), for seeding. */
  associated(words: readonly string[]): Map<string, number> {
    this.sync();
    const out = new Map<string, number>();
    if (words.length === 0) return out;
    for (const w of words) for (const [id, v] of this.terms.get(w) ?? []) out.set(id, (out.get(id) ?? 0) + v / words.length);
    return out;
  }

  /** Per-edge multipliers for the graph's current version, or null when no edge was learned. */
  edgeFactors(g: CodeGraph): Float32Array | null {
    this.sync();
    if (this.edges.size === 0) return null;
    const c = this.edgeCache;
    if (c && c.graph === g && c.version === g.version && c.rev === this.rev) return c.factors;
    const factors = new Float32Array(g.edgeCapacity).fill(1);
    let any = false;
    for (const [key, { factor }] of this.edges) {
      const [src, tgt] = key.split(SEP);
      const s = g.indexOf(src);
      const t = g.indexOf(tgt);
      if (s < 0 || t < 0 || s + 1 >= g.outOffsets.length) continue;
      for (let k = g.outOffsets[s]; k < g.outOffsets[s + 1]; k++) {
        const e = g.outEdges[k];
        if (g.edgeTarget[e] === t) {
          factors[e] = factor;
          any = true;
        }
      }
    }
    this.edgeCache = { graph: g, version: g.version, rev: this.rev, factors: any ? factors : null };
    return this.edgeCache.factors;
  }

  /** Learned edge multipliers by "source id → target id". */
  edgeEntries(): [source: string, target: string, factor: number][] {
    this.sync();
    return [...this.edges].map(([k, v]) => {
      const [s, t] = k.split(SEP);
      return [s, t, v.factor];
    });
  }

  /** A copy of the current weights (for drift baselines). */
  snapshot(): LearnedSnapshot {
    this.sync();
    return {
      revision: Math.max(0, this.rev),
      nodes: new Map([...this.nodeMap].map(([k, v]) => [k, v.bias])),
      nodeUpdatedAt: new Map([...this.nodeMap].map(([k, v]) => [k, v.updatedAt])),
      edges: new Map([...this.edges].map(([k, v]) => [k, v.factor])),
    };
  }

  /** Stores the current weights under a checkpoint name (replacing any earlier record of that name). */
  saveCheckpoint(name: string): void {
    if (!this.writable) throw new Error('learned weights are read-only on this server');
    const s = this.snapshot();
    const record: StoredSnapshot = { revision: s.revision, nodes: Object.fromEntries(s.nodes), nodeUpdatedAt: Object.fromEntries(s.nodeUpdatedAt), edges: Object.fromEntries(s.edges) };
    this.engine.memory.set(LEARNED_NAMESPACE, `${CHECKPOINT_PREFIX}${name}`, record);
  }

  /** The weights a checkpoint recorded, or null when it recorded none (made before checkpoints kept them). */
  checkpoint(name: string): LearnedSnapshot | null {
    let stored: StoredSnapshot | undefined;
    try {
      stored = this.engine.memory.get<StoredSnapshot>(LEARNED_NAMESPACE, `${CHECKPOINT_PREFIX}${name}`)?.value;
    } catch {
      return null;
    }
    if (!stored) return null;
    return {
      revision: stored.revision,
      nodes: new Map(Object.entries(stored.nodes)),
      nodeUpdatedAt: new Map(Object.entries(stored.nodeUpdatedAt)),
      edges: new Map(Object.entries(stored.edges)),
    };
  }

  /** The newest feedback events, oldest first. */
  events(limit = 50): FeedbackEvent[] {
    try {
      const all = this.engine.memory.list<FeedbackEvent>(LEARNED_NAMESPACE, 'event:', MAX_EVENTS * 2);
      return all.slice(-limit).map((e) => e.value);
    } catch {
      return [];
    }
  }

  /**
   * Applies feedback and persists it in one transaction: correct raises (partial half as much) and
   * wrong lowers each node's bias by strength/2 and its association with the query words by
   * strength; correct/partial also strengthen the edges among the given nodes.
   */
  record(input: LearnInput): LearnReport {
    if (!this.writable) throw new Error('learned weights are read-only on this server');
    const sign = input.feedback === 'wrong' ? -1 : 1;
    const scale = input.feedback === 'partial' ? 0.5 : 1;
    const now = Date.now();
    const mem = this.engine.memory;
    const report: LearnReport = { nodes: [], edges: [], revision: 0 };
    const words = [...new Set(input.words)];
    try {
      mem.transaction(() => this.apply(input, words, sign, scale, now, report));
    } catch (error) {
      this.rev = -1; // the in-memory copy may be half-updated: reload from the store next time
      throw error;
    }
    this.edgeCache = null;
    return report;
  }

  private apply(input: LearnInput, words: string[], sign: number, scale: number, now: number, report: LearnReport): void {
    const mem = this.engine.memory;
    // Inside the write transaction: what another process committed is loaded before we add to it.
    this.sync();
    const touchedTerms = new Set<string>();
    for (const n of input.nodes) {
      const prev = this.nodeMap.get(n.id);
      const beforeBias = prev?.bias ?? 0;
      const beforeAssoc = this.association(words, n.id);
      const bias = clamp(beforeBias + sign * scale * input.strength * 0.5, -MAX_BIAS, MAX_BIAS);
      const entry: LearnedNode = {
        bias,
        correct: (prev?.correct ?? 0) + (input.feedback === 'correct' ? 1 : 0),
        wrong: (prev?.wrong ?? 0) + (input.feedback === 'wrong' ? 1 : 0),
        partial: (prev?.partial ?? 0) + (input.feedback === 'partial' ? 1 : 0),
        updatedAt: now,
        path: n.path,
        lines: [n.startLine, n.endLine],
        lastQuery: input.query,
      };
      this.nodeMap.set(n.id, entry);
      mem.set(LEARNED_NAMESPACE, `node:${n.id}`, entry);
      for (const w of words) {
        let m = this.terms.get(w);
        if (!m) this.terms.set(w, (m = new Map()));
        m.set(n.id, clamp((m.get(n.id) ?? 0) + sign * scale * input.strength, -MAX_ASSOCIATION, MAX_ASSOCIATION));
        touchedTerms.add(w);
      }
      report.nodes.push({ id: n.id, bias: [beforeBias, bias], association: [beforeAssoc, this.association(words, n.id)] });
    }
    for (const w of touchedTerms) {
      const m = this.terms.get(w)!;
      if (m.size > MAX_TERM_NODES) {
        const keep = [...m].sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, MAX_TERM_NODES);
        this.terms.set(w, new Map(keep));
      }
      mem.set(LEARNED_NAMESPACE, `term:${w}`, Object.fromEntries(this.terms.get(w)!));
    }
    if (input.feedback !== 'wrong') {
      for (const [s, t] of input.pairs) {
        const key = `${s}${SEP}${t}`;
        const before = this.edges.get(key)?.factor ?? 1;
        const factor = clamp(before * (1 + scale * input.strength), EDGE_FACTOR_RANGE[0], EDGE_FACTOR_RANGE[1]);
        this.edges.set(key, { factor, updatedAt: now });
        mem.set(LEARNED_NAMESPACE, `edge:${key}`, { factor, updatedAt: now });
        report.edges.push({ source: s, target: t, factor: [before, factor] });
      }
    }
    const event: FeedbackEvent = { at: now, agent: input.agent, query: input.query, feedback: input.feedback, nodes: input.nodes.map((n) => n.id), strength: input.strength };
    mem.set(LEARNED_NAMESPACE, `event:${String(now).padStart(15, '0')}:${Math.random().toString(36).slice(2, 8)}`, event);
    const events = mem.list(LEARNED_NAMESPACE, 'event:', MAX_EVENTS * 2);
    for (const old of events.slice(0, Math.max(0, events.length - MAX_EVENTS))) mem.delete(LEARNED_NAMESPACE, old.key);
    const rev = Number(mem.get<number>(LEARNED_NAMESPACE, 'rev')?.value ?? 0) + 1;
    mem.set(LEARNED_NAMESPACE, 'rev', rev);
    this.rev = rev;
    report.revision = rev;
  }
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, x));
}
