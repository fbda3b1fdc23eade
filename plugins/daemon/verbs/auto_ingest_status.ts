/** auto_ingest_status: the auto-ingest state, queue depth, counters and manifest. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function autoIngestStatusVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'auto_ingest_status',
    description: 'Document auto-ingest state: roots, formats, queue depth, counters and the newest manifest entries.',
    input: Type.Object({
      agent_id: AgentId,
      top_k: Type.Integer({ minimum: 0, maximum: 200, default: 20, description: 'Manifest entries shown (most recent first)' }),
    }),
    tiers: ['full'],
    effect: 'read',
    handler: async (args) => {
      const state = await rt.autoIngest.state();
      const manifest = (await rt.autoIngest.manifest()).sort((a, b) => b.at - a.at || a.path.localeCompare(b.path));
      const byResult: Record<string, number> = {};
      for (const m of manifest) byResult[m.result] = (byResult[m.result] ?? 0) + 1;
      return {
        active: state.active,
        watching: rt.autoIngest.watching,
        roots: state.roots.map((r) => r || '.'),
        formats: state.formats,
        debounce_ms: state.debounce_ms,
        queue: rt.autoIngest.pending,
        ticks: state.ticks,
        last_tick_at: state.last_tick_at ? new Date(state.last_tick_at).toISOString() : null,
        counters: state.counters,
        manifest: {
          entries: manifest.length,
          by_result: byResult,
          recent: manifest.slice(0, args.top_k).map((m) => ({ path: m.path, converter: m.converter, result: m.result, hash: m.hash, at: new Date(m.at).toISOString(), ...(m.error ? { error: m.error } : {}) })),
        },
        ...(rt.autoIngest.lastError ? { last_error: rt.autoIngest.lastError } : {}),
      };
    },
  });
}
