/** GET /api/overview: workspace, server, graph size and freshness, verb counts, plugins and quarantines, store, recent errors. */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CORE_VERSION, type HttpRouteResponse } from '../../../core/index.ts';
import { iso, json, type DashboardContext } from '../context.ts';

/** How long a count of stale files is reused (it stats every ingested file). */
const STALE_TTL_MS = 2000;
const STAT_BATCH = 128;
let staleCache: { key: string; at: number; count: number } | undefined;

export async function overview(ctx: DashboardContext): Promise<HttpRouteResponse> {
  const surface = ctx.catalog.surface();
  const store = await ctx.state.team.status().catch((error: Error) => ({ kind: ctx.state.team.kind, location: '', error: error.message }));
  return json({
    workspace: ctx.settings.workspaceRoot,
    server: { version: CORE_VERSION, read_only: ctx.settings.readOnly, tier: surface.tier, transport: 'http' },
    graph: await graphSection(ctx),
    verbs: { registered: surface.counts.registry, advertised: surface.counts.advertised },
    plugins: [
      ...ctx.catalog.plugins().map((p) => ({ name: p.name, version: p.version, status: 'loaded' })),
      ...ctx.catalog.quarantined().map((q) => ({ name: q.plugin, version: null, status: 'quarantined', reason: `${q.check}: ${q.message}` })),
    ],
    store: { kind: store.kind, path_or_url_redacted: store.location, ...('error' in store && store.error ? { error: store.error } : {}) },
    recent_errors: ctx.stats.recentErrors(20),
  });
}

async function graphSection(ctx: DashboardContext) {
  const engine = ctx.graph.engine;
  if (!engine.storeExists()) return { state: 'empty', nodes: 0, edges: 0, files: 0, last_ingest_at: null, stale_files: 0 };
  let status;
  try {
    status = engine.status();
  } catch {
    return { state: 'loading', nodes: 0, edges: 0, files: 0, last_ingest_at: null, stale_files: 0 };
  }
  const state = status.nodes > 0 ? 'ready' : status.files > 0 ? 'loading' : 'empty';
  return {
    state,
    nodes: status.nodes,
    edges: status.edges,
    files: status.files,
    last_ingest_at: iso(status.ingestedAt),
    stale_files: state === 'ready' ? await staleFiles(ctx, status.loadedGeneration) : 0,
  };
}

/**
 * Ingested files whose size or mtime on disk differs from what the store recorded (or that are gone).
 * A count for this graph generation is answered at once and recounted in the background once it is
 * older than STALE_TTL_MS; a new generation is counted before answering.
 */
async function staleFiles(ctx: DashboardContext, generation: number): Promise<number> {
  const key = `${ctx.settings.workspaceRoot}|${generation}`;
  if (staleCache && staleCache.key === key) {
    if (Date.now() - staleCache.at >= STALE_TTL_MS && !recounting) {
      recounting = countStale(ctx, key)
        .catch(() => undefined)
        .finally(() => (recounting = undefined));
    }
    return staleCache.count;
  }
  return countStale(ctx, key);
}

let recounting: Promise<unknown> | undefined;

async function countStale(ctx: DashboardContext, key: string): Promise<number> {
  const rows = [...ctx.graph.engine.storedFiles().values()];
  const root = ctx.graph.engine.root;
  let count = 0;
  // Batches of parallel stats: never one long synchronous walk over a big workspace.
  for (let i = 0; i < rows.length; i += STAT_BATCH) {
    const batch = rows.slice(i, i + STAT_BATCH);
    const stats = await Promise.all(batch.map((r) => stat(path.join(root, r.path)).catch(() => null)));
    stats.forEach((s, k) => {
      if (!s || s.size !== batch[k].size || Math.abs(s.mtimeMs - batch[k].mtimeMs) > 1) count++;
    });
  }
  staleCache = { key, at: Date.now(), count };
  return count;
}
