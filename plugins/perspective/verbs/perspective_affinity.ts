/** perspective_affinity: probable but unconfirmed connections of a route target. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { AFFINITY_WEIGHTS, affinityOf } from '../affinity.ts';
import { PerspectiveId, perspectiveGraphCall, RouteChoice, RouteSetVersion } from '../context.ts';
import { nodeRef } from '../graph-view.ts';
import { pickRoute } from '../routes.ts';
import { NodeRefSchema } from '../../graph/api.ts';

export const perspectiveAffinityVerb = defineVerb({
  name: 'perspective_affinity',
  description: 'Probable but unstated connections of a route target: shared neighbours, similar names, co-location. Each is explained.',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId, ...RouteChoice, route_set_version: RouteSetVersion }),
  output: Type.Object({
    note: Type.Optional(Type.String()),
    route_id: Type.String(),
    target: NodeRefSchema,
    candidates: Type.Array(Type.Object({})),
    weights: Type.Object({ shared: Type.Number(), lexical: Type.Number(), colocated: Type.Number() }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['ground', 'diagnose'],
  guide:
    'Candidates have no edge to the target (those are confirmed already). Score = 0.5 × shared neighbours (Adamic–Adar over calls/imports/references/…, not containment; hubs skipped) + 0.3 × name similarity (lexical index) + 0.2 × co-location (same file 1, same directory 0.5). Co-location alone never qualifies a candidate. "probable" ≥ 0.5, else "possible": verify before relying on one.',
  handler: async (args, call) => {
    const { engine, book, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    const { route, index, rs } = pickRoute(engine, p, args);
    const candidates = affinityOf(engine, route.t, 8);
    return {
      route_id: `R${rs.version}.${index}`,
      target: nodeRef(engine.graph.get(route.t)!),
      candidates,
      weights: AFFINITY_WEIGHTS,
      ...(candidates.length === 0 ? { note: 'no node shares neighbours or a name with the target without already being linked to it' } : {}),
    };
  },
});
