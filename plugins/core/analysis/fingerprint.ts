/** fingerprint: nodes that behave equivalently (candidate duplicates), by structural signature. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { COMPARABLE_KINDS, sharedFeatureNames, similarPairs, similarTo, structuralSimilarity, type SimilarPair } from '../../graph/algorithms/signatures.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArg, round3 } from './graph-call.ts';
import { activateQuery } from './query-activation.ts';

const PROBE_TOP = 200;

export const fingerprintVerb = defineVerb({
  name: 'fingerprint',
  description: 'Find nodes that behave equivalently (candidate duplicates) by structural signature similarity.',
  input: Type.Object({
    agent_id: AgentId,
    target_node: Type.Optional(Type.String({ minLength: 1, description: 'Compare against this node only' })),
    similarity_threshold: Type.Number({ minimum: 0, maximum: 1, default: 0.85 }),
    probe_queries: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 10, description: 'Also compare activation responses' })),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
  }),
  effect: 'read',
  stages: ['review', 'plan'],
  guide: [
    `Compares ${COMPARABLE_KINDS.join(', ')} nodes of the same kind. A node's signature is what it does, named by label so copies in different files match: the functions it calls, the types it references or inherits, the members it contains. similarity = 0.8 × Jaccard(signatures) + 0.2 × (smaller / larger line count). Nodes with fewer than two signature features are skipped (too little evidence).`,
    'Without target_node the whole graph is searched with MinHash/LSH candidates (over-generic buckets skipped; the answer says how many pairs were scored). With probe_queries, nodes are also compared by how they respond to those queries (cosine of their activation across probes) and similarity becomes the mean of the structural and response similarities, over the nodes the probes reach.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    const target = args.target_node ? resolveNodeArg(engine, args.target_node, 'target_node') : undefined;
    if (target && !(COMPARABLE_KINDS as readonly string[]).includes(target.node.kind)) {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `fingerprint compares ${COMPARABLE_KINDS.join(', ')} nodes; ${target.node.id} is a ${target.node.kind}`, {
        hint: 'pass a symbol inside it (view or seek lists them), or omit target_node to search the whole graph',
      });
    }
    const threshold = args.similarity_threshold;
    let pairs: (SimilarPair & { response?: number })[];
    let scored = 0;
    let truncated = false;
    const probes = args.probe_queries ?? [];
    if (probes.length) {
      // Response vectors: each node's activation under each probe.
      const response = new Map<number, Float32Array>();
      probes.forEach((q, p) => {
        const o = activateQuery(graph, engine, { query: q, agentId: call.agentId, dimensions: ['structural', 'causal'], topK: PROBE_TOP, xlr: false, ghostEdges: true, boosts: false, kinds: [...COMPARABLE_KINDS] });
        for (const r of o.ranked) {
          let v = response.get(r.index);
          if (!v) response.set(r.index, (v = new Float32Array(probes.length)));
          v[p] = r.score;
        }
      });
      if (target && !response.has(target.index)) response.set(target.index, new Float32Array(probes.length));
      const nodes = [...response.keys()];
      const combine = (a: number, b: number): (SimilarPair & { response: number }) | null => {
        const s = structuralSimilarity(g, a, b);
        if (s.similarity === 0) return null;
        const r = cosine(response.get(a)!, response.get(b)!);
        return { a, b, ...s, similarity: (s.similarity + r) / 2, response: r };
      };
      pairs = [];
      if (target) {
        for (const b of nodes) {
          if (b === target.index) continue;
          scored++;
          const c = combine(target.index, b);
          if (c && c.similarity >= threshold) pairs.push(c);
        }
      } else {
        for (let x = 0; x < nodes.length; x++) {
          for (let y = x + 1; y < nodes.length; y++) {
            scored++;
            const c = combine(Math.min(nodes[x], nodes[y]), Math.max(nodes[x], nodes[y]));
            if (c && c.similarity >= threshold) pairs.push(c);
          }
        }
      }
      pairs.sort((p, q) => q.similarity - p.similarity || p.a - q.a || p.b - q.b);
      pairs = pairs.slice(0, args.top_k);
    } else if (target) {
      pairs = similarTo(g, target.index, threshold, args.top_k);
    } else {
      const found = similarPairs(g, threshold, { limit: args.top_k });
      pairs = found.pairs;
      scored = found.candidates;
      truncated = found.truncated;
    }
    const rows = pairs.map((p) => ({
      ...(target ? { node: nodeRef(g.node(p.b)!) } : { a: nodeRef(g.node(p.a)!), b: nodeRef(g.node(p.b)!) }),
      similarity: round3(p.similarity),
      jaccard: round3(p.jaccard),
      size_ratio: round3(p.sizeRatio),
      ...(p.response !== undefined ? { response: round3(p.response) } : {}),
      shared: sharedFeatureNames(g, p.a, p.b),
    }));
    const elapsedMs = performance.now() - t0;
    const seen = pairs.flatMap((p) => [p.a, p.b]).map((i) => g.node(i)!);
    recordVisit(call, engine.root, { nodes: seen, query: { subject: target?.node.id ?? (probes.join(' | ') || 'all'), results: rows.length, elapsedMs } });
    return {
      ...(target ? { target: nodeRef(target.node), matches: rows } : { pairs: rows }),
      threshold,
      ...(probes.length ? { probes } : {}),
      ...(scored ? { pairs_scored: scored } : {}),
      ...(truncated ? { truncated: true } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
