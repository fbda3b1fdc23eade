/** auto_ingest_status: the auto-ingest state, queue depth, counters, failed documents, dropped events and manifest. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { MAX_DOCUMENTS } from '../auto-ingest.ts';
import { FAILED_SHOWN, retryAt } from '../auto-ingest-failures.ts';
import { CountersSchema } from '../auto-ingest-state.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function autoIngestStatusVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'auto_ingest_status',
    description: 'Document auto-ingest state: roots, formats, queue depth, counters, failed documents with their errors, dropped events and the newest manifest entries.',
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
      counters: CountersSchema,
      failed: Type.Array(
        Type.Object({ path: Type.String(), converter: Type.String(), error: Type.String(), attempts: Type.Number(), at: Type.String(), retry_at: Type.String({ description: 'When it is tried again if unchanged (a change retries it at once)' }) }),
        { description: `Documents whose last conversion or ingest failed, newest first (${FAILED_SHOWN} at most; manifest.by_result.failed counts them all)` },
      ),
      dropped: Type.Optional(
        Type.Object(
          { events: Type.Number(), queue_limit: Type.Number(), action: Type.String() },
          { description: 'Present while file events the full queue dropped have not been queued again by a rescan' },
        ),
      ),
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
      const failed = manifest.filter((m) => m.result === 'failed').slice(0, FAILED_SHOWN);
      const dropped = rt.autoIngest.dropped;
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
        counters: { ...state.counters, queued: state.counters.queued + rt.autoIngest.uncountedQueued, dropped: state.counters.dropped + rt.autoIngest.uncountedDropped },
        failed: failed.map((m) => ({ path: m.path, converter: m.converter, error: m.error ?? 'unknown error', attempts: m.attempts ?? 1, at: new Date(m.at).toISOString(), retry_at: new Date(retryAt(m)).toISOString() })),
        ...(dropped > 0
          ? {
              dropped: {
                events: dropped,
                queue_limit: MAX_DOCUMENTS,
                action:
                  `${dropped} file event(s) were dropped because the queue was full (${MAX_DOCUMENTS}): those documents are not ingested yet. ` +
                  'Drain the queue (auto_ingest_tick {"max_documents":1000}, repeated until `queue` is well below the limit); a tick rescans the roots first, and once a rescan finds room it queues the dropped documents again (the background reconciliation rescans too once the folders are quiet). Narrower roots or formats (auto_ingest_start) keep the queue smaller.',
              },
            }
          : {}),
        manifest: {
          entries: manifest.length,
          by_result: byResult,
          recent: manifest.slice(0, args.top_k).map((m) => ({ path: m.path, converter: m.converter, result: m.result, hash: m.hash, at: new Date(m.at).toISOString(), ...(m.error ? { error: m.error } : {}), ...(m.attempts ? { attempts: m.attempts } : {}) })),
        },
        ...(rt.autoIngest.lastError ? { last_error: rt.autoIngest.lastError } : {}),
      };
    },
  });
}
