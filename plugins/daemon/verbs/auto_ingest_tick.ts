/** auto_ingest_tick: rescan the document roots and drain the queue now. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

/** Paths listed per kind in an answer (failures: FAILED_SHOWN, with their errors); `counts` has the full numbers. */
const SHOWN = 100;
const FAILED_SHOWN = 20;

export function autoIngestTickVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'auto_ingest_tick',
    description: 'Rescan the document roots and drain the queue now: changed documents re-converted and re-ingested, deleted ones pruned from the graph and manifest, ones a new start left out released.',
    input: Type.Object({
      agent_id: AgentId,
      max_documents: Type.Integer({ minimum: 1, maximum: 1000, default: 64, description: 'Documents handled this tick (the rest wait)' }),
    }),
    output: Type.Object({
      processed: Type.Number(),
      ingested: Type.Array(Type.String()),
      converted: Type.Array(Type.String()),
      unchanged: Type.Number(),
      pruned: Type.Array(Type.String()),
      released: Type.Array(Type.String(), { description: 'No longer under the roots or of the formats (a new start): out of the manifest; a converted one out of the graph, a Markdown file left to the code ingest' }),
      failed: Type.Array(Type.Object({ path: Type.String(), error: Type.String() })),
      counts: Type.Object(
        { ingested: Type.Number(), converted: Type.Number(), pruned: Type.Number(), released: Type.Number(), failed: Type.Number() },
        { description: 'How many documents each list holds in full (the lists show 100 at most, failed 20)' },
      ),
      truncated: Type.Boolean({ description: 'A list was cut: counts has the full numbers' }),
      remaining: Type.Number(),
      generation: Type.Union([Type.Number(), Type.Null()]),
    }),
    tiers: ['full'],
    effect: 'write',
    next: 'auto_ingest_status',
    handler: async (args, call) => {
      const r = await rt.autoIngest.tick(args.max_documents, true, call.signal);
      return {
        processed: r.processed,
        ingested: r.ingested.slice(0, SHOWN),
        converted: r.converted.slice(0, SHOWN),
        unchanged: r.unchanged,
        pruned: r.pruned.slice(0, SHOWN),
        released: r.released.slice(0, SHOWN),
        failed: r.failed.slice(0, FAILED_SHOWN),
        counts: { ingested: r.ingested.length, converted: r.converted.length, pruned: r.pruned.length, released: r.released.length, failed: r.failed.length },
        truncated: [r.ingested, r.converted, r.pruned, r.released].some((l) => l.length > SHOWN) || r.failed.length > FAILED_SHOWN,
        remaining: r.remaining,
        generation: r.generation,
      };
    },
  });
}
