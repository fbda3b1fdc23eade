/**
 * Twin pairs without comparing every pair: MinHash signatures of the shingle sets and LSH banding
 * (lsh-index.ts: pairs sharing a band bucket are compared; an oversized bucket is cut, it only holds
 * boilerplate), scored with the exact Jaccard of their shingles; then, for `twins`, the graph
 * signature's part of the score.
 */
import { structuralSimilarity, warmSignatures, type CodeGraph, type GraphNode } from '../graph/api.ts';
import { LshIndex, type LshPair } from './lsh-index.ts';
import { HASHES } from './minhash.ts';
import type { Shape } from './shapes.ts';

const BANDS = 8;
const ROWS = HASHES / BANDS;
/** Pairs kept per kind, best first, before the graph part of the score. */
const MAX_PAIRS_PER_KIND = 20_000;
/** Pair looks (a Jaccard each at most) between two paces: 20,000 of them were a 30-75 ms stretch on the stdlib. */
const LOOKS_PER_PACE = 1_000;

const best = (p: LshPair, q: LshPair) => q.ast - p.ast || p.a - q.a || p.b - q.b;

/**
 * Pairs of indices into `shapes` whose shingle Jaccard is at least `threshold`, best first.
 * `covered` (one byte per shape): instead of returning pairs, sets both ends of each pair found —
 * the same set of covered shapes for less work, when only who has a partner matters.
 */
export async function twinPairs(shapes: readonly Shape[], threshold: number, maxPairs: number, options: { rows?: number; pace?: () => Promise<void>; covered?: Uint8Array } = {}): Promise<LshPair[]> {
  const covered = options.covered;
  const index = new LshIndex(threshold, { rows: options.rows ?? ROWS, pairs: !covered });
  let looks = 0;
  for (const shape of shapes) {
    looks += index.add(shape).looks + 1;
    if (options.pace && looks >= LOOKS_PER_PACE) {
      looks = 0;
      await options.pace();
    }
  }
  if (covered) {
    for (let i = 0; i < shapes.length; i++) if (index.covered(i)) covered[i] = 1;
    return [];
  }
  return [...index.pairs()].sort(best).slice(0, maxPairs);
}

/** A scored twin pair: `ast` the shape Jaccard, `graph` the graph-signature similarity (null: no features). */
export interface TwinPair {
  a: GraphNode;
  b: GraphNode;
  similarity: number;
  ast: number;
  graph: number | null;
  tokens: [number, number];
}

/**
 * The twin pairs of symbols added a file at a time (`add`; a cold `twins` adds each file's as its
 * shapes land, cold-shapes.ts), then scored (`finish`): each kind with its own kind only, shapes of
 * at least `minTokens` tokens, LSH pairs of shape Jaccard ≥ threshold − 0.2 (the AST score must
 * carry most of the threshold on its own: the graph part adds at most 0.2), then 0.8 × shape +
 * 0.2 × graph signature when the graph has features for the pair; those at or over `threshold`,
 * best first. The answer depends on the order symbols are added in, not on when.
 */
export class TwinScorer {
  private readonly byKind = new Map<string, { index: LshIndex; nodes: GraphNode[]; shapes: Shape[] }>();
  private looks = 0;

  constructor(
    private readonly g: CodeGraph,
    private readonly kinds: ReadonlySet<string>,
    private readonly threshold: number,
    private readonly minTokens: number,
  ) {
    for (const kind of kinds) this.byKind.set(kind, { index: new LshIndex(Math.max(0.3, threshold - 0.2), { rows: ROWS, pairs: true }), nodes: [], shapes: [] });
  }

  /** Adds the symbols of `list` that have a shape in `shapes`. */
  async add(list: readonly GraphNode[], shapes: ReadonlyMap<string, Shape>, pace: () => Promise<void>): Promise<void> {
    for (const s of list) {
      const kind = this.byKind.get(s.kind);
      const shape = shapes.get(s.id);
      if (!kind || !shape || shape.tokens < this.minTokens) continue;
      kind.nodes.push(s);
      kind.shapes.push(shape);
      // A signature made here (no worker made one) is tens of µs for a long shape: counted as looks.
      this.looks += kind.index.add(shape).looks + (shape.minhash ? 1 : 8);
      if (this.looks >= LOOKS_PER_PACE) {
        this.looks = 0;
        await pace();
      }
    }
  }

  /** The scored pairs, best first. */
  async finish(pace: () => Promise<void>): Promise<TwinPair[]> {
    const g = this.g;
    const pairs: TwinPair[] = [];
    await warmSignatures(g, pace); // the graph part of the score: every comparable node's features, made paced
    for (const { index, nodes, shapes } of this.byKind.values()) {
      let scored = 0;
      for (const p of [...index.pairs()].sort(best).slice(0, MAX_PAIRS_PER_KIND)) {
        if ((++scored & 511) === 0) await pace();
        const a = nodes[p.a];
        const b = nodes[p.b];
        const s = structuralSimilarity(g, g.indexOf(a.id), g.indexOf(b.id));
        const hasGraph = s.jaccard > 0 || s.shared > 0;
        const similarity = hasGraph ? 0.8 * p.ast + 0.2 * s.similarity : p.ast;
        if (similarity < this.threshold) continue;
        pairs.push({ a, b, similarity, ast: p.ast, graph: hasGraph ? s.similarity : null, tokens: [shapes[p.a].tokens, shapes[p.b].tokens] });
      }
      await pace();
    }
    pairs.sort((x, y) => y.similarity - x.similarity || x.a.id.localeCompare(y.a.id));
    return pairs;
  }
}

/** The twin pairs among `symbols` (TwinScorer, the symbols added in their order). */
export async function scoreTwins(g: CodeGraph, symbols: readonly GraphNode[], shapes: ReadonlyMap<string, Shape>, kinds: ReadonlySet<string>, threshold: number, minTokens: number, pace: () => Promise<void>): Promise<TwinPair[]> {
  const scorer = new TwinScorer(g, kinds, threshold, minTokens);
  await scorer.add(symbols, shapes, pace);
  return scorer.finish(pace);
}
