/** daemon_tick: one daemon cycle now — poll the watched files against the store, re-ingest, raise alerts. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function daemonTickVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'daemon_tick',
    description: 'Run one daemon cycle now: compare watched files with the graph store, re-ingest changed ones, raise alerts for deleted or moved files, broken doc links and stale claims.',
    input: Type.Object({
      agent_id: AgentId,
      max_files: Type.Integer({ minimum: 1, maximum: 5000, default: 32, description: 'Changed files handled this cycle (the rest wait)' }),
    }),
    output: Type.Object({
      daemon_active: Type.Boolean(),
      polled: Type.Number(),
      found_by_poll: Type.Number(),
      processed: Type.Number(),
      reingested: Type.Array(Type.String()),
      deleted: Type.Array(Type.String()),
      moved: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
      alerts_raised: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), subject: Type.String() })),
      alerts_resolved: Type.Number(),
      claims_checked: Type.Number(),
      remaining: Type.Number(),
      generation: Type.Union([Type.Number(), Type.Null()]),
      elapsed_ms: Type.Number(),
      errors: Type.Optional(Type.Array(Type.String())),
    }),
    tiers: ['full'],
    effect: 'write',
    next: 'alerts_list',
    handler: async (args, call) => {
      const r = await rt.daemon.tick({ maxFiles: args.max_files, poll: true, trigger: 'call', signal: call.signal });
      const state = await rt.daemon.state();
      return {
        daemon_active: state.active,
        polled: r.polled,
        found_by_poll: r.found_by_poll,
        processed: r.processed,
        reingested: r.reingested.slice(0, 100),
        deleted: r.deleted.slice(0, 100),
        moved: r.moved.slice(0, 100),
        alerts_raised: r.alerts_raised.slice(0, 100),
        alerts_resolved: r.alerts_resolved,
        claims_checked: r.claims_checked,
        remaining: r.remaining,
        generation: r.generation,
        elapsed_ms: r.elapsed_ms,
        ...(r.errors.length ? { errors: r.errors.slice(0, 5) } : {}),
      };
    },
  });
}
