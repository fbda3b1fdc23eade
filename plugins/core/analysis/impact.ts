/** impact: the blast radius of changing one node, ranked by signal, each with the chain that reaches it. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { RELATIONS } from '../../graph/engine/graph.ts';
import { pathTokens } from '../../graph/algorithms/explain.ts';
import { fileIndexOf, KIND_CODE, kindCodes } from '../../graph/algorithms/graph-facts.ts';
import { pathTo, propagate, type Direction } from '../../graph/algorithms/propagation.ts';
import { IMPACT_PROFILE } from '../../graph/algorithms/relations.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArg, round3 } from './graph-call.ts';

const WALK: Record<'forward' | 'reverse' | 'both', Direction> = { forward: 'out', reverse: 'in', both: 'both' };

/** Per-hop decay and cut-off of the impact signal. */
export const IMPACT_DECAY = 0.85;
export const IMPACT_THRESHOLD = 0.01;

export const impactVerb = defineVerb({
  name: 'impact',
  description: 'Blast radius of changing a node: reverse = what depends on it, forward = what it depends on; ranked, with causal chains.',
  input: Type.Object({
    agent_id: AgentId,
    node_id: Type.String({ minLength: 1, description: 'Node id, path, path:line or name' }),
    direction: StringEnum(['forward', 'reverse', 'both'] as const, { default: 'forward' }),
    include_causal_chains: Type.Boolean({ default: true }),
    max_depth: Type.Integer({ minimum: 1, maximum: 10, default: 5 }),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['plan', 'review', 'diagnose'],
  next: 'why',
  guide: [
    'Edges point from the dependent to what it needs (`a -calls-> b`). `reverse` walks them backwards: callers, importers, subclasses, tests and docs of the node — the usual blast radius of changing it. `forward` walks what the node itself relies on. `both` does both.',
    `The signal starts at 1 and crosses each edge multiplied by its weight (calls 1.0, imports 0.8, inherits 0.9, references 0.6×0.8, tests 0.7×0.9, documents 0.5×0.6, co-change up to 0.8×0.6; resolution confidence included) and by ${IMPACT_DECAY} per hop; each node keeps its strongest chain. Directory containment is not walked. Below ${IMPACT_THRESHOLD} the walk stops.`,
    'Each entry gives its depth, the relation of the last hop and (with include_causal_chains) the whole chain, e.g. `["function:c.ts#c", "<-calls-", "function:b.ts#b"]` reads "b calls c".',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { engine, g } = await openGraph(call);
    const origin = resolveNodeArg(engine, args.node_id, 'node_id');
    const p = propagate(g, [{ index: origin.index, signal: 1 }], {
      direction: WALK[args.direction],
      relations: IMPACT_PROFILE,
      decay: IMPACT_DECAY,
      threshold: IMPACT_THRESHOLD,
      maxDepth: args.max_depth,
      maxVisits: 20_000,
    });
    const kinds = kindCodes(g);
    const fileOf = fileIndexOf(g);
    const byDepth: Record<string, number> = {};
    const byKind: Record<string, number> = {};
    const files = new Set<number>();
    let energy = 0;
    let affected = 0;
    const entries: number[] = [];
    for (let k = 1; k < p.count; k++) {
      const v = p.order[k];
      if (kinds[v] === KIND_CODE.module) continue;
      affected++;
      energy += p.signal[k];
      byDepth[p.depth[k]] = (byDepth[p.depth[k]] ?? 0) + 1;
      const kind = g.node(v)!.kind;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      if (fileOf[v] >= 0 && fileOf[v] !== fileOf[origin.index]) files.add(fileOf[v]);
      if (entries.length < args.top_k) entries.push(k);
    }
    const blast = entries.map((k) => {
      const v = p.order[k];
      const hops = pathTo(p, v);
      const last = hops[hops.length - 1];
      return {
        ...nodeRef(g.node(v)!),
        depth: p.depth[k],
        signal: round3(p.signal[k]),
        relation: `${last.backward ? '<-' : '-'}${RELATIONS[g.edgeRelation[last.edge]]}${last.backward ? '-' : '->'}`,
        ...(args.include_causal_chains ? { chain: pathTokens(g, hops) } : {}),
      };
    });
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: [origin.node, ...entries.map((k) => g.node(p.order[k])!)], query: { subject: origin.node.id, results: affected, elapsedMs } });
    return {
      node: nodeRef(origin.node),
      ...(origin.resolvedFrom ? { resolved_from: origin.resolvedFrom } : {}),
      direction: args.direction,
      affected,
      other_files: files.size,
      total_energy: round3(energy),
      by_depth: byDepth,
      by_kind: byKind,
      blast_radius: blast,
      ...(affected > blast.length ? { omitted: affected - blast.length } : {}),
      ...(p.truncated ? { truncated: true } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});
