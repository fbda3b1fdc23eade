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
    output: Type.Object({
      active: Type.Boolean(),
      watching: Type.Boolean(),
      roots: Type.Array(Type.String()),
      formats: Type.Array(Type.String()),
      debounce_ms: Type.Number(),
      queue: Type.Number(),
      ticks: Type.Number(),
      last_tick_at: Type.Union([Type.String(), Type.Null()]),
      counters: Type.Object({ scanned: Type.Number(), queued: Type.Number(), ingested: Type.Number(), converted: Type.Number(), unchanged: Type.Number(), pruned: Type.Number(), failed: Type.Number() }),
      manifest: Type.Object({ entries: Type.Number(), by_result: Type.Record(Type.String(), Type.Number()), recent: Type.Array(Type.Unknown()) }),
      last_error: Type.Optional(Type.String()),
    }),
    tiers: ['full'],
    effect: 'read',
    handler: async (args) => {
      // Stopped by another server of this checkout: this one's watcher stops too (and is not reported as watching).
      await rt.autoIngest.syncWatching();
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
        // The watcher's events since the last scan or tick are counted then: shown now, so `queued` never lags `queue`.
        counters: { ...state.counters, queued: state.counters.queued + rt.autoIngest.uncountedQueued },
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
