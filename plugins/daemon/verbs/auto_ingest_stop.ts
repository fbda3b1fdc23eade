/** auto_ingest_stop: stop the document watchers; the manifest is kept. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { CountersSchema } from '../auto-ingest-state.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function autoIngestStopVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'auto_ingest_stop',
    description: 'Stop the document auto-ingest watchers (it stays stopped across restarts); the manifest is kept.',
    input: Type.Object({ agent_id: AgentId }),
    output: Type.Object({
      was_active: Type.Boolean(),
      active: Type.Boolean(),
      counters: CountersSchema,
      manifest_entries: Type.Number(),
      note: Type.Optional(Type.String()),
    }),
    tiers: ['full'],
    effect: 'session',
    handler: async () => {
      const before = await rt.autoIngest.state();
      const state = rt.autoIngest.writable ? await rt.autoIngest.stop() : before;
      // A read-only server never resumes auto-ingest: the stored state still says active and a writable server would resume it.
      const note = !rt.autoIngest.writable && state.active ? 'read-only server: nothing was stopped (no watcher runs here); the stored auto-ingest stays active and resumes on the next writable server (call auto_ingest_stop there)' : undefined;
      return { was_active: before.active, active: state.active, counters: state.counters, manifest_entries: (await rt.autoIngest.manifest()).length, ...(note ? { note } : {}) };
    },
  });
}
