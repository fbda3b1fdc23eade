/**
 * One layer of learned ranking weights (the team's, or one agent's), loaded from its store rows,
 * and the arithmetic of one piece of feedback applied to it (see learned.ts).
 */
import type { CodeGraphEngine } from './engine/engine.ts';
import type { FeedbackEvent, LearnedNode, LearnInput, LearnReport } from './learned.ts';

/** Bias per node stays within ±MAX_BIAS (×0.5 … ×2). */
export const MAX_BIAS = 0.7;
export const MAX_ASSOCIATION = 1;
export const EDGE_FACTOR_RANGE: [number, number] = [0.25, 3];
/** Newest feedback events kept per store. */
export const MAX_EVENTS = 500;
export const SEP = '\u0001';
const MAX_TERM_NODES = 200;

export function clamp(x: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, x));
}

/** The event row key: time-ordered, unique. */
export function eventKey(at: number): string {
  return `event:${String(at).padStart(15, '0')}:${Math.random().toString(36).slice(2, 8)}`;
}

/** The rows one feedback writes, and its event. */
export interface FeedbackWrites {
  rows: [key: string, value: unknown][];
  event: FeedbackEvent;
}

/** A layer as loaded: node biases, word→node associations and edge factors. */
export class Layer {
  nodeMap = new Map<string, LearnedNode>();
  terms = new Map<string, Map<string, number>>();
  edges = new Map<string, { factor: number; updatedAt: number }>();

  constructor(readonly namespace: string) {}

  load(engine: CodeGraphEngine): this {
    const mem = engine.memory;
    const ns = this.namespace;
    return this.loadRows([...mem.list(ns, 'node:', 1_000_000), ...mem.list(ns, 'term:', 1_000_000), ...mem.list(ns, 'edge:', 1_000_000)]);
  }

  /** Fills the layer from `node:`, `term:` and `edge:` rows (other keys are ignored). */
  loadRows(rows: readonly { key: string; value: unknown }[]): this {
    for (const { key, value } of rows) {
      const kind = key.slice(0, 5);
      if (kind === 'node:') this.nodeMap.set(key.slice(5), value as LearnedNode);
      else if (kind === 'term:') this.terms.set(key.slice(5), new Map(Object.entries(value as Record<string, number>)));
      else if (kind === 'edge:') this.edges.set(key.slice(5), value as { factor: number; updatedAt: number });
    }
    return this;
  }

  get empty(): boolean {
    return this.nodeMap.size === 0 && this.terms.size === 0 && this.edges.size === 0;
  }

  /** Sum over the query words of association / word count, per node. */
  associated(words: readonly string[], out = new Map<string, number>()): Map<string, number> {
    if (words.length === 0) return out;
    for (const w of words) for (const [id, v] of this.terms.get(w) ?? []) out.set(id, (out.get(id) ?? 0) + v / words.length);
    return out;
  }

  association(words: readonly string[], id: string): number {
    if (words.length === 0 || this.terms.size === 0) return 0;
    let sum = 0;
    for (const w of words) sum += this.terms.get(w)?.get(id) ?? 0;
    return sum / words.length;
  }

  /** The row keys feedback on these nodes, words and pairs reads and writes (what a partial load needs). */
  static keysOf(input: LearnInput): string[] {
    return [...input.nodes.map((n) => `node:${n.id}`), ...[...new Set(input.words)].map((w) => `term:${w}`), ...input.pairs.map(([s, t]) => `edge:${s}${SEP}${t}`)];
  }

  /**
   * Applies feedback to this layer in memory and returns the rows to persist: correct raises
   * (partial half as much) and wrong lowers each node's bias by strength/2 and its association with
   * the query words by strength; correct/partial also strengthen the edges among the given nodes.
   * The report gets the layer's own before/after values.
   */
  apply(input: LearnInput, now: number, report: LearnReport): FeedbackWrites {
    const sign = input.feedback === 'wrong' ? -1 : 1;
    const scale = input.feedback === 'partial' ? 0.5 : 1;
    const words = [...new Set(input.words)];
    const rows: [string, unknown][] = [];
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
      rows.push([`node:${n.id}`, entry]);
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
      rows.push([`term:${w}`, Object.fromEntries(this.terms.get(w)!)]);
    }
    if (input.feedback !== 'wrong') {
      for (const [s, t] of input.pairs) {
        const key = `${s}${SEP}${t}`;
        const before = this.edges.get(key)?.factor ?? 1;
        const factor = clamp(before * (1 + scale * input.strength), EDGE_FACTOR_RANGE[0], EDGE_FACTOR_RANGE[1]);
        this.edges.set(key, { factor, updatedAt: now });
        rows.push([`edge:${key}`, { factor, updatedAt: now }]);
        report.edges.push({ source: s, target: t, factor: [before, factor] });
      }
    }
    const event: FeedbackEvent = { at: now, agent: input.agent, query: input.query, feedback: input.feedback, nodes: input.nodes.map((n) => n.id), strength: input.strength, scope: input.scope };
    return { rows, event };
  }
}
