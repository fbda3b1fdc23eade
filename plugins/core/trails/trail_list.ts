/** trail_list: saved trails, filtered by agent, status and tags, newest first, each flagged stale or current. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { graphOf } from '../shared.ts';
import { FileReader } from './fingerprint.ts';
import { allTrails, type Trail } from './trail-book.ts';
import type { StateService } from '../../state/api.ts';

const SHOWN = 100;

export const trailListVerb = defineVerb({
  name: 'trail_list',
  description: 'List saved trails (newest first), filtered by agent, status or tags; each says whether its code changed since.',
  input: Type.Object({
    agent_id: AgentId,
    filter_agent_id: Type.Optional(Type.String({ minLength: 1, description: 'Only trails saved by this agent' })),
    filter_status: Type.Optional(StringEnum(['saved', 'merged', 'stale', 'current'] as const, { description: 'stale/current: whether its files or nodes changed since saved' })),
    filter_tags: Type.Array(Type.String({ minLength: 1 }), { default: [], description: 'Only trails carrying all of these tags' }),
  }),
  output: Type.Object({
    total: Type.Integer(),
    trails: Type.Array(Type.Object({ trail_id: Type.String(), label: Type.String(), agent_id: Type.String(), status: Type.String(), stale: Type.Boolean(), tags: Type.Array(Type.String()), nodes: Type.Integer() })),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['orient', 'handoff'],
  next: 'trail_resume',
  handler: async (args, call) => {
    const graph = graphOf(call);
    await graph.fresh();
    const engine = graph.engine;
    const files = new FileReader(engine);
    const isStale = (t: Trail) =>
      Object.entries(t.files).some(([path, hash]) => (files.get(path)?.hash ?? 'missing') !== hash) || t.visited.some((n) => !engine.getNode(n.id));
    const rows = (await allTrails(call.service<StateService>('state'), call.agentId))
      .filter((t) => args.filter_agent_id === undefined || t.agent_id === args.filter_agent_id)
      .filter((t) => args.filter_tags.every((tag) => t.tags.includes(tag)))
      .map((t) => ({ t, stale: isStale(t) }))
      .filter(({ t, stale }) => {
        switch (args.filter_status) {
          case undefined:
            return true;
          case 'stale':
            return stale;
          case 'current':
            return !stale;
          default:
            return t.status === args.filter_status;
        }
      })
      .sort((a, b) => b.t.updated_at - a.t.updated_at || a.t.trail_id.localeCompare(b.t.trail_id));
    return {
      total: rows.length,
      trails: rows.slice(0, SHOWN).map(({ t, stale }) => ({
        trail_id: t.trail_id,
        label: t.label,
        agent_id: t.agent_id,
        status: t.status,
        stale,
        tags: t.tags,
        nodes: t.visited.length,
        hypotheses: t.hypotheses.length,
        open_questions: t.open_questions.length,
        ...(t.summary ? { summary: t.summary.length > 160 ? `${t.summary.slice(0, 157)}…` : t.summary } : {}),
        ...(t.merged_into ? { merged_into: t.merged_into } : {}),
        updated_at: new Date(t.updated_at).toISOString(),
      })),
      ...(rows.length > SHOWN ? { truncated: true, note: `showing the newest ${SHOWN}; narrow with filters` } : {}),
    };
  },
});
