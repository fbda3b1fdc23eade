/** why: how two nodes are connected — the best bounded-hop paths, explained edge by edge. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { NodeRefSchema, RELATIONS } from '../../graph/api.ts';
import { hopSentence, pathLine } from '../../graph/api.ts';
import { edgeConfidence } from '../../graph/api.ts';
import { explainPaths } from '../../graph/api.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArg, round3 } from './graph-call.ts';

export const whyVerb = defineVerb({
  name: 'why',
  description: 'How two nodes are connected: the best paths within max_hops, each edge explained.',
  input: Type.Object({
    agent_id: AgentId,
    source: Type.String({ minLength: 1 }),
    target: Type.String({ minLength: 1 }),
    max_hops: Type.Integer({ minimum: 1, maximum: 12, default: 6 }),
    min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'Skip edges resolved below this confidence' }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    bounded: Type.Optional(Type.String()),
    note: Type.Optional(Type.String()),
    found: Type.Boolean(),
    paths: Type.Array(Type.Object({})),
    resolved_from: Type.Optional(Type.Object({ source: Type.Optional(Type.Object({})), target: Type.Optional(Type.Object({})) })),
    source: NodeRefSchema,
    target: NodeRefSchema,
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['diagnose', 'ground'],
  next: 'view',
  guide: [
    'Source and target accept ids, paths, `path:line`, `path#Name` or names. Edges are walked in either direction; each step says which way (`b -calls-> c`, or `c <-calls- b` when walked against the edge).',
    'A hop costs 1 + −ln(edge weight) plus a small toll for passing through a hub, so the best path is both short and specific. Directory containment is never walked ("same folder" explains nothing). The search is bidirectional and bounded by max_hops; when no path fits, the answer says whether the nodes are connected at all.',
    'Each step gives the resolution `confidence` of its edge (weight = default weight × confidence) and each path its `weakest` step; `min_confidence` keeps weaker edges out of the search.',
    'Up to two alternatives follow the best path, found by making the edges already used more expensive (kept while at most about twice as costly). Each search settles a bounded number of nodes; when that bound stops it, the answer says `bounded`.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { engine, g } = await openGraph(call);
    const from = await resolveNodeArg(engine, args.source, 'source');
    const to = await resolveNodeArg(engine, args.target, 'target');
    const found = explainPaths(g, from.index, to.index, { maxHops: args.max_hops, k: 3, minConfidence: args.min_confidence });
    const paths = found.paths.map((p) => {
      const confidences = p.hops.map((h) => edgeConfidence(g, h.edge));
      return {
        hops: p.hops.length,
        strength: round3(p.strength),
        weakest: confidences.length ? Math.min(...confidences) : 1,
        line: pathLine(g, p.hops),
        steps: p.hops.map((h, i) => ({
          from: g.node(h.from)!.id,
          relation: RELATIONS[g.edgeRelation[h.edge]],
          to: g.node(h.to)!.id,
          direction: h.backward ? 'backward' : 'forward',
          confidence: confidences[i],
          says: hopSentence(g, h),
        })),
      };
    });
    const elapsedMs = performance.now() - t0;
    const seen = new Set<number>([from.index, to.index]);
    for (const p of found.paths) for (const h of p.hops) seen.add(h.to);
    recordVisit(call, engine.root, { nodes: [...seen].map((i) => g.node(i)!), query: { subject: `${from.node.id} → ${to.node.id}`, results: paths.length, elapsedMs } });
    return {
      source: nodeRef(from.node),
      target: nodeRef(to.node),
      ...(from.resolvedFrom || to.resolvedFrom ? { resolved_from: { source: from.resolvedFrom, target: to.resolvedFrom } } : {}),
      found: paths.length > 0,
      paths,
      ...(paths.length === 0
        ? {
            note: found.connected
              ? `no path within ${args.max_hops} hops${args.min_confidence > 0 ? ` over edges of confidence ≥ ${args.min_confidence}` : ''}, but the two are connected: raise max_hops${args.min_confidence > 0 ? ' or lower min_confidence' : ''}`
              : 'not connected at any length (at most they share a directory)',
          }
        : {}),
      ...(found.truncated ? { bounded: 'the search hit its visit cap: these are the best paths found within it' } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});
