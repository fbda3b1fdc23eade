/** perspective_suggest: the next move, judged from the current routes and the perspective's history. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { PerspectiveId, perspectiveGraphCall, RouteSetVersion } from '../context.ts';
import { round } from '../graph-view.ts';
import { currentRouteSet, renderRoute } from '../routes.ts';

/** Extra weight for a route along the relation the agent has followed most (a habit of 2+ moves). */
const HABIT_BONUS = 0.1;
/** Fixed priors, not computed from the routes: how often going back / starting anew is the right move is unknown. */
const BACK_PRIOR = 0.7;
const START_PRIOR = 0.5;
const FOLLOW_BASIS = 'computed: 0.45 + 0.3 × margin over the runner-up + 0.15 × the target\'s query match, at most 0.9';

export const perspectiveSuggestVerb = defineVerb({
  name: 'perspective_suggest',
  description: 'Recommend the next move (follow a route, go back, or start anew) from the routes and your history, with a ready call (a template to fill for start).',
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId, route_set_version: RouteSetVersion }),
  output: Type.Object({
    suggestion: Type.Union([Type.Object({ action: Type.String(), route_id: Type.String(), target: Type.Object({}), why: Type.String(), confidence: Type.Number(), confidence_basis: Type.String(), call: Type.Object({}), call_template: Type.Optional(Type.Unknown()) }), Type.Object({ action: Type.String(), why: Type.String(), confidence: Type.Number(), confidence_basis: Type.String(), call: Type.Object({}), route_id: Type.Optional(Type.Unknown()), target: Type.Optional(Type.Unknown()), call_template: Type.Optional(Type.Unknown()) }), Type.Object({ action: Type.String(), why: Type.String(), confidence: Type.Number(), confidence_basis: Type.String(), call_template: Type.Object({}), route_id: Type.Optional(Type.Unknown()), target: Type.Optional(Type.Unknown()), call: Type.Optional(Type.Unknown()) })]),
    alternatives: Type.Optional(Type.Array(Type.Object({}))),
    perspective_id: Type.String(),
    route_set_version: Type.Number(),
    history: Type.Object({ habit: Type.Optional(Type.String()), depth: Type.Number(), moves: Type.Number() }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['find'],
  guide: `Routes to visited or backed-out-of nodes are never suggested; a route along your most-followed relation (2+ moves) gets +${HABIT_BONUS}. A follow's confidence is ${FOLLOW_BASIS.replace('computed: ', '')}; back (${BACK_PRIOR}) and start (${START_PRIOR}) carry fixed priors, labelled confidence_basis: "fixed prior". A start comes as call_template (template: true, fill the query), never as a runnable call.`,
  handler: async (args, call) => {
    const { engine, book, boosts, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    const rs = currentRouteSet(engine, p, args.route_set_version);
    const habits = new Map<string, number>();
    for (const m of p.moves) if (m.kind === 'follow') for (const r of m.via ?? []) habits.set(r, (habits.get(r) ?? 0) + 1);
    const [habit, habitCount] = [...habits].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
    // Nodes already visited or backed out of are not suggested again (a backed-out node is also visited,
    // but the visited list is capped and may have dropped it).
    const visited = new Set(p.visited);
    const abandoned = new Set(p.abandoned);
    const ranked = rs.items
      .map((route, i) => {
        let adjusted = route.s;
        const notes: string[] = [];
        if (habit && habitCount >= 2 && route.via.some((v) => v.r === habit)) {
          adjusted += HABIT_BONUS;
          notes.push(`continues along ${habit} (followed ${habitCount}×)`);
        }
        return { route, index: i + 1, adjusted, notes };
      })
      .filter((x) => !visited.has(x.route.t) && !abandoned.has(x.route.t))
      .sort((a, b) => b.adjusted - a.adjusted || a.index - b.index);
    const base = { perspective_id: p.id, route_set_version: rs.version, history: { depth: p.history.length, moves: p.moves.length, ...(habit ? { habit: `${habit} ×${habitCount}` } : {}) } };
    const best = ranked[0];
    if (best) {
      const second = ranked[1]?.adjusted ?? 0;
      const margin = best.adjusted > 0 ? Math.max(0, (best.adjusted - second) / best.adjusted) : 0;
      const confidence = round(Math.min(0.9, 0.45 + 0.3 * margin + 0.15 * best.route.f[1]));
      const shown = renderRoute(engine, rs, best.route, best.index, boosts);
      return {
        ...base,
        suggestion: {
          action: 'follow',
          route_id: shown.route_id,
          target: shown.target,
          why: [`best unvisited route: ${shown.why}`, ...best.notes].join('; '),
          confidence,
          confidence_basis: FOLLOW_BASIS,
          call: { tool: 'perspective_follow', arguments: { agent_id: agentId, perspective_id: p.id, route_id: shown.route_id, route_set_version: rs.version } },
        },
        alternatives: ranked.slice(1, 3).map((x) => renderRoute(engine, rs, x.route, x.index, boosts)),
      };
    }
    if (p.history.length > 0) {
      return {
        ...base,
        suggestion: {
          action: 'back',
          why: 'every route from here is visited or was backed out of',
          confidence: BACK_PRIOR,
          confidence_basis: 'fixed prior',
          call: { tool: 'perspective_back', arguments: { agent_id: agentId, perspective_id: p.id } },
        },
      };
    }
    return {
      ...base,
      suggestion: {
        action: 'start',
        why: 'nothing new around the starting node; look elsewhere with another query',
        confidence: START_PRIOR,
        confidence_basis: 'fixed prior',
        // No runnable call: the new query is the agent's to choose.
        call_template: { tool: 'perspective_start', arguments: { agent_id: agentId, query: '<a query for another part of the code>' }, template: true, fill: ['query'] },
      },
    };
  },
});
