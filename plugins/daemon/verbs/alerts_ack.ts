/** alerts_ack: acknowledge alerts for the calling agent (others still see them). */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function alertsAckVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'alerts_ack',
    description: 'Acknowledge alerts for you: alerts_list hides them from you, other agents still see them.',
    input: Type.Object({
      agent_id: AgentId,
      alert_ids: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { minItems: 1, maxItems: 200, description: 'Ids from alerts_list' }),
    }),
    output: Type.Object({ acked: Type.Array(Type.String()), unknown: Type.Optional(Type.Array(Type.String())), hint: Type.Optional(Type.String()) }),
    tiers: ['full'],
    // It persists (state, manifest, acknowledgements): the read-only gate refuses it before any side effect.
    effect: 'write',
    handler: async (args, call) => {
      const r = await rt.alerts.ack(call.agentId, args.alert_ids);
      return { acked: r.acked, ...(r.unknown.length ? { unknown: r.unknown, hint: 'ids come from alerts_list (include_acked and include_resolved show every alert you can see)' } : {}) };
    },
  });
}
