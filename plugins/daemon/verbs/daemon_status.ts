/** daemon_status: the daemon's persisted state, its watcher, queue and counters, and the alert counts. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { storeAway } from '../alert-outbox.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function daemonStatusVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'daemon_status',
    description: 'Daemon state: active or not, watched paths, queue depth, cycle counters, last cycle and alert counts.',
    input: Type.Object({ agent_id: AgentId }),
    output: Type.Object({
      active: Type.Boolean(),
      watching: Type.Boolean(),
      watch_paths: Type.Array(Type.String()),
      poll_interval_ms: Type.Number(),
      started_by: Type.Union([Type.String(), Type.Null()]),
      started_at: Type.Union([Type.String(), Type.Null()]),
      last_tick_at: Type.Union([Type.String(), Type.Null()]),
      ticks: Type.Number(),
      queue: Type.Number(),
      counters: Type.Object({ reingested: Type.Number(), deleted: Type.Number(), moved: Type.Number(), alerts_raised: Type.Number(), failed: Type.Number(), overflowed: Type.Number(), found_by_poll: Type.Number({ description: 'Changed files a poll found that no watcher event reported' }) }),
      alerts: Type.Optional(Type.Object({ open: Type.Number(), unacked: Type.Number(), resolved: Type.Number() }, { description: 'Absent while the alert store (the team store) is unreachable: see alerts_error' })),
      alerts_error: Type.Optional(Type.String({ description: 'Why the alert counts could not be read (the team store is unreachable); the daemon keeps running' })),
      last_cycle: Type.Optional(Type.Object({ trigger: Type.String(), processed: Type.Number(), alerts_raised: Type.Number(), elapsed_ms: Type.Number() })),
      watch_error: Type.Optional(Type.String()),
      last_error: Type.Optional(Type.String()),
      read_only: Type.Optional(Type.Boolean()),
    }),
    tiers: ['full'],
    effect: 'read',
    handler: async (_args, call) => {
      const state = await rt.daemon.state();
      const last = rt.daemon.lastReport;
      // The daemon's state is local: a team store that is away costs the alert counts, not the status.
      const alerts = await rt.alerts.counts(call.agentId).catch((error: unknown) => {
        if (!storeAway(error)) throw error;
        return (error as Error).message;
      });
      return {
        ...rt.daemon.summary(state),
        started_at: state.started_at ? new Date(state.started_at).toISOString() : null,
        last_tick_at: state.last_tick_at ? new Date(state.last_tick_at).toISOString() : null,
        ticks: state.ticks,
        queue: rt.daemon.pending,
        counters: state.counters,
        ...(typeof alerts === 'string' ? { alerts_error: alerts } : { alerts }),
        ...(last ? { last_cycle: { trigger: last.trigger, processed: last.processed, alerts_raised: last.alerts_raised.length, elapsed_ms: last.elapsed_ms } } : {}),
        ...(rt.daemon.watchError ? { watch_error: rt.daemon.watchError } : {}),
        ...(rt.daemon.lastError ? { last_error: rt.daemon.lastError } : {}),
        ...(!rt.daemon.writable ? { read_only: true } : {}),
      };
    },
  });
}
