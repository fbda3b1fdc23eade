/** auto_ingest_start: watch document roots and keep their documents ingested (bootstrap scan, queue, manifest). */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { CONVERTERS } from '../../documents/api.ts';
import type { DaemonRuntime } from '../runtime.ts';

const FORMATS = CONVERTERS.map((c) => c.name) as [string, ...string[]];

export function autoIngestStartVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'auto_ingest_start',
    description: 'Watch document folders and keep their documents ingested: a bootstrap scan queues new or changed ones, auto_ingest_tick (or the watcher) drains the queue. Persists; resumes after a restart.',
    input: Type.Object({
      agent_id: AgentId,
      roots: Type.Array(Type.String({ minLength: 1, description: 'Workspace folder' }), { minItems: 1, maxItems: 32, workspacePath: true, description: 'Document folders to watch' }),
      formats: Type.Array(StringEnum(FORMATS), { minItems: 1, maxItems: FORMATS.length, default: [...FORMATS], description: 'Converters to use (document_provider_health lists them)' }),
      debounce_ms: Type.Integer({ minimum: 20, maximum: 600_000, default: 200, description: 'Quiet time after file events before the queue drains' }),
    }),
    output: Type.Object({ active: Type.Boolean(), roots: Type.Array(Type.String()), formats: Type.Array(Type.String()), debounce_ms: Type.Number(), bootstrap_queued: Type.Number(), next: Type.String() }),
    tiers: ['full'],
    // It persists (state, manifest, acknowledgements): the read-only gate refuses it before any side effect.
    effect: 'write',
    next: 'auto_ingest_status',
    handler: async (args, call) => {
      const roots = [...new Set(args.roots.map((r) => rt.daemon.resolveWatchPaths([r])[0]))].sort();
      const { state, queued } = await rt.autoIngest.start(call.agentId, roots, [...new Set(args.formats)], args.debounce_ms);
      return {
        active: state.active,
        roots: state.roots.map((r) => r || '.'),
        formats: state.formats,
        debounce_ms: state.debounce_ms,
        bootstrap_queued: queued,
        next: 'auto_ingest_tick drains the queue now; the watcher drains it in the background too',
      };
    },
  });
}
