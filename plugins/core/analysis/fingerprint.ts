/** fingerprint: nodes that behave equivalently (candidate duplicates), by structural signature. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { COMPARABLE_KINDS, featureCount, NodeRefSchema, sharedFeatureNames, signatures, similarPairsPaced, similarTo, slicePace, structuralSimilarity, warmSignatures, type SimilarPair } from '../../graph/api.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArg, round3 } from './graph-call.ts';
import { cosine, MIN_RESPONSE_DIMENSIONS, probeResponses } from './probe-response.ts';
import { activationReady } from './query-activation.ts';

/** Features a node needs to be compared (similarTo's default). */
const MIN_FEATURES = 2;

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
  output: Type.Object({
    elapsed_ms: Type.Number(),
    truncated: Type.Optional(Type.Boolean()),
    pairs_scored: Type.Optional(Type.Number()),
    response_note: Type.Optional(Type.String()),
    note: Type.Optional(Type.String()),
    probes: Type.Optional(Type.Array(Type.String())),
    threshold: Type.Number(),
    target: Type.Optional(NodeRefSchema),
    matches: Type.Optional(Type.Array(Type.Object({}))),
    pairs: Type.Optional(Type.Array(Type.Object({}))),
  }),
  effect: 'read',
  stages: ['review', 'plan'],
  guide: [
    `Compares ${COMPARABLE_KINDS.join(', ')} nodes of the same kind. A node's signature is what it does, named by label so copies in different files match: the functions it calls, the types it references or inherits, the members it contains. similarity = 0.8 × Jaccard(signatures) + 0.2 × (smaller / larger line count). Nodes with fewer than two signature features are skipped (too little evidence; a target skipped so gets a note).`,
    `Without target_node the whole graph is searched with MinHash/LSH candidates (over-generic buckets skipped; the answer says how many pairs were scored). With probe_queries, only nodes the probes reach are compared, and also by how they respond: each probe adds one dimension per seed it finds (the signal a walk from that seed alone leaves on the node); with at least ${MIN_RESPONSE_DIMENSIONS} dimensions, response = cosine of the two nodes' vectors and similarity = mean of structural and response (fewer: structural only, response_note says so). The two-feature evidence rule holds here too.`,
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    const target = args.target_node ? await resolveNodeArg(engine, args.target_node, 'target_node') : undefined;
    if (target && !(COMPARABLE_KINDS as readonly string[]).includes(target.node.kind)) {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `fingerprint compares ${COMPARABLE_KINDS.join(', ')} nodes; ${target.node.id} is a ${target.node.kind}`, {
        hint: 'pass a symbol inside it (view or seek lists them), or omit target_node to search the whole graph',
      });
    }
    const probes = args.probe_queries ?? [];
    let note: string | undefined;
    if (target) {
      // Too few features: no match then says nothing about duplicates, and the answer must say so.
      await warmSignatures(g, slicePace(8));
      const features = featureCount(signatures(g), target.index);
      if (features < MIN_FEATURES) {
        note = `${target.node.id} has ${features} signature feature(s) resolved in the graph (calls, references, inheritance, members); fingerprint needs ${MIN_FEATURES} to compare, so it was compared with nothing: look for copies of its source with search`;
      }
    }
    const threshold = args.similarity_threshold;
    let pairs: (SimilarPair & { response?: number })[];
    let scored = 0;
    let truncated = false;
    let responseNote: string | undefined;
    if (probes.length) {
      await activationReady(engine, 'names');
      const probed = await probeResponses(graph, engine, probes, call.agentId, target?.index);
      const useResponse = probed.dimensions >= MIN_RESPONSE_DIMENSIONS;
      if (!useResponse) {
        responseNote = `the probes found ${probed.dimensions} seed(s); a response needs at least ${MIN_RESPONSE_DIMENSIONS} dimensions to mean anything, so similarity is structural only (add probes that name more of the code)`;
      }
      const combine = (a: number, b: number): (SimilarPair & { response?: number }) | null => {
        const s = structuralSimilarity(g, a, b);
        if (s.similarity === 0) return null;
        if (!useResponse) return { a, b, ...s };
        const r = cosine(probed.vectors.get(a)!, probed.vectors.get(b)!);
        return { a, b, ...s, similarity: (s.similarity + r) / 2, response: r };
      };
      const nodes = probed.nodes;
      pairs = [];
      if (target) {
        if (probed.vectors.has(target.index)) {
          for (const b of nodes) {
            if (b === target.index) continue;
            scored++;
            const c = combine(target.index, b);
            if (c && c.similarity >= threshold) pairs.push(c);
          }
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
      pairs = similarTo(g, target.index, threshold, args.top_k, MIN_FEATURES);
    } else {
      const found = await similarPairsPaced(g, threshold, { limit: args.top_k }, slicePace(8));
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
      ...(responseNote ? { response_note: responseNote } : {}),
      ...(note ? { note } : {}),
      ...(scored ? { pairs_scored: scored } : {}),
      ...(truncated ? { truncated: true } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});
