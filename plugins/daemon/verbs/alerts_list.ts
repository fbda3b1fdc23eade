/** alerts_list: persisted alerts the caller has not acknowledged (or all), newest first. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function alertsListVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'alerts_list',
    description: 'Persisted alerts (deleted/moved files, broken doc links, stale claims), newest first, a page at a time (offset, next_offset); those you acknowledged are hidden unless include_acked.',
    input: Type.Object({
      agent_id: AgentId,
      include_acked: Type.Boolean({ default: false, description: 'Also alerts you acknowledged' }),
      include_resolved: Type.Boolean({ default: false, description: 'Also alerts whose condition cleared' }),
      severity: Type.Optional(StringEnum(['info', 'warning', 'error'], { description: 'Only this severity and above' })),
      limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
      offset: Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'Alerts to skip (next_offset of the previous page)' }),
    }),
    output: Type.Object({
      total: Type.Number(),
      alerts: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), severity: Type.String(), status: Type.String(), source: Type.String(), path: Type.Optional(Type.String()), node: Type.Optional(Type.String()), message: Type.String(), raised_at: Type.String(), last_seen_at: Type.String(), acked: Type.Boolean(), acked_by: Type.Array(Type.Unknown()), resolved_at: Type.Optional(Type.String()), resolution: Type.Optional(Type.String()), details: Type.Optional(Type.Unknown()) })),
      truncated: Type.Boolean({ description: 'More alerts follow this page' }),
      next_offset: Type.Optional(Type.Integer({ description: 'The offset of the next page, while truncated' })),
    }),
    tiers: ['full'],
    effect: 'read',
    next: 'alerts_ack',
    handler: async (args, call) => {
      const rank = { info: 0, warning: 1, error: 2 } as const;
      const all = await rt.alerts.all(call.agentId);
      const shown = all.filter(
        (a) =>
          (args.include_resolved || a.status === 'open') &&
          (args.include_acked || !a.acked_by[call.agentId]) &&
          (!args.severity || rank[a.severity] >= rank[args.severity]),
      );
      return {
        total: shown.length,
        alerts: shown.slice(args.offset, args.offset + args.limit).map((a) => ({
          id: a.id,
          kind: a.kind,
          severity: a.severity,
          status: a.status,
          source: a.source,
          ...(a.path ? { path: a.path } : {}),
          ...(a.node ? { node: a.node } : {}),
          message: a.message,
          raised_at: new Date(a.raised_at).toISOString(),
          last_seen_at: new Date(a.last_seen_at).toISOString(),
          acked: Boolean(a.acked_by[call.agentId]),
          acked_by: Object.keys(a.acked_by),
          ...(a.resolved_at ? { resolved_at: new Date(a.resolved_at).toISOString(), resolution: a.resolution } : {}),
          ...(a.details ? { details: a.details } : {}),
        })),
        truncated: shown.length > args.offset + args.limit,
        ...(shown.length > args.offset + args.limit ? { next_offset: args.offset + args.limit } : {}),
      };
    },
  });
}
