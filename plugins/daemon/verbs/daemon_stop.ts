/** daemon_stop: stop the monitoring daemon; alerts and counters are kept. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function daemonStopVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'daemon_stop',
    description: 'Stop the monitoring daemon (it stays stopped across restarts); alerts and counters are kept.',
    input: Type.Object({ agent_id: AgentId }),
    output: Type.Object({
      was_active: Type.Boolean(),
      active: Type.Boolean(),
      watching: Type.Boolean(),
      ticks: Type.Number(),
      counters: Type.Object({ reingested: Type.Number(), deleted: Type.Number(), moved: Type.Number(), alerts_raised: Type.Number(), failed: Type.Number(), overflowed: Type.Number(), found_by_poll: Type.Number({ description: 'Changed files a poll found that no watcher event reported' }) }),
    }),
    tiers: ['full'],
    effect: 'session',
    handler: async () => {
      const before = await rt.daemon.state();
      // A read-only server never started one: nothing runs and nothing is written.
      const state = rt.daemon.writable ? await rt.daemon.stop() : before;
      // The stored state still says active: a writable server would resume it, so the caller is told where to stop it.
      const note = !rt.daemon.writable && state.active ? 'read-only server: nothing ran here and nothing was stopped; the stored daemon stays active and resumes on the next writable server (call daemon_stop there)' : undefined;
      return { was_active: before.active, active: state.active, watching: rt.daemon.watching, ticks: state.ticks, counters: state.counters, ...(note ? { note } : {}) };
    },
  });
}
