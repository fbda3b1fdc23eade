/** One layer of learned ranking weights (the team's, or one agent's), loaded from its memory namespace; see learned.ts. */
import type { CodeGraphEngine } from './engine/engine.ts';
import type { LearnedNode } from './learned.ts';

/** A layer as loaded: node biases, word→node associations and edge factors. */
export class Layer {
  nodeMap = new Map<string, LearnedNode>();
  terms = new Map<string, Map<string, number>>();
  edges = new Map<string, { factor: number; updatedAt: number }>();

  constructor(readonly namespace: string) {}

  load(engine: CodeGraphEngine): this {
    const mem = engine.memory;
    const ns = this.namespace;
    this.nodeMap = new Map(mem.list<LearnedNode>(ns, 'node:', 1_000_000).map((e) => [e.key.slice(5), e.value]));
    this.terms = new Map(mem.list<Record<string, number>>(ns, 'term:', 1_000_000).map((e) => [e.key.slice(5), new Map(Object.entries(e.value))]));
    this.edges = new Map(mem.list<{ factor: number; updatedAt: number }>(ns, 'edge:', 1_000_000).map((e) => [e.key.slice(5), e.value]));
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
}
