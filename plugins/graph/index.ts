/**
 * The code graph engine as a service plugin: opens the workspace's store at boot (loading the
 * stored graph instead of re-ingesting), watches the workspace so edited files are re-ingested
 * before the next query, reports the graph in health, and closes the store at shutdown.
 */
import { definePlugin, Type } from '../../core/index.ts';
import { CodeGraphEngine } from './engine/engine.ts';
import { createGraphService } from './service.ts';
import { preciseReport } from './engine/ts-program/precise-pass.ts';

const Options = Type.Object({
  watch: Type.Boolean({ default: true, description: 'Watch the workspace and re-ingest edited files before the next query' }),
  maxFileBytes: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  exclude: Type.Array(Type.String(), { default: [], description: 'Extra glob patterns never ingested' }),
  gitMaxCommits: Type.Integer({ minimum: 0, default: 2000 }),
  typeCheck: Type.Boolean({ default: true, description: 'Upgrade TS/JS call edges with the TypeScript checker (in a worker thread)' }),
  parseWorkers: Type.Optional(Type.Integer({ minimum: 0, description: 'Parse worker threads of an ingest (default one per core; 0: the main thread)' })),
});

export default definePlugin<{ watch: boolean; maxFileBytes: number; exclude: string[]; gitMaxCommits: number; typeCheck: boolean; parseWorkers?: number }>({
  name: 'graph',
  version: '0.1.0',
  description: 'The code graph of the workspace (ingest, store, lookups, seek, search).',
  provides: ['graph'],
  options: Options,
  apply(ctx) {
    const engine = new CodeGraphEngine({
      root: ctx.settings.workspaceRoot,
      storeDir: ctx.settings.storeDir,
      maxFileBytes: ctx.options.maxFileBytes,
      exclude: ctx.options.exclude,
      gitMaxCommits: ctx.options.gitMaxCommits,
      typeCheck: ctx.options.typeCheck,
      parseWorkers: ctx.options.parseWorkers,
      readOnly: ctx.settings.readOnly,
    });
    // Read-only servers never write the store: no watcher-driven re-ingest there.
    const writable = !ctx.settings.readOnly;
    const service = createGraphService(engine, writable, ctx.session);
    ctx.provide('graph', service);
    let lastIngest: string | null = null;
    let closed = false;
    let watching = false;
    let watchError: string | null = null;
    // The seek index and PageRank build on first use (~0.3 s on 25K nodes): build them off the call path.
    const warmSoon = () =>
      setImmediate(() => {
        if (closed) return;
        try {
          engine.warmIndexes();
        } catch (error) {
          ctx.log.debug(`index warm-up skipped: ${(error as Error).message}`);
        }
      }).unref();

    ctx.hooks.boot.tapPromise('graph', async () => {
      const opened = await engine.open();
      ctx.log.info(`graph: generation ${opened.generation}, ${opened.nodes} nodes, ${opened.edges} edges (${opened.elapsedMs} ms)`);
      if (writable && ctx.options.watch) {
        try {
          await engine.watch();
          watching = true;
        } catch (error) {
          // No watcher (e.g. inotify limits): the graph still works; edits show up at the next ingest.
          watchError = (error as Error).message;
          ctx.log.warn(`graph: file watcher unavailable, edited files are picked up by the next ingest: ${watchError}`);
        }
      }
      if (opened.loaded) warmSoon();
    });
    ctx.hooks.afterCall.tap('graph', (call, outcome) => {
      if (call.name === 'ingest' && outcome.kind === 'ok') {
        lastIngest = new Date().toISOString();
        warmSoon();
      }
    });
    ctx.hooks.health.tapPromise('graph', async (report) => {
      if (!engine.storeExists()) {
        return { ...report, graph: { loaded: false, node_count: 0, edge_count: 0, store_dir: engine.storeDir, store: 'absent', next: 'ingest with a writable server (this one is read-only)' } };
      }
      const s = engine.status();
      return {
        ...report,
        graph: {
          loaded: s.nodes > 0,
          node_count: s.nodes,
          edge_count: s.edges,
          generation: s.loadedGeneration,
          stale: s.stale,
          store_dir: engine.storeDir,
          watching,
          ...(watchError ? { watch_error: watchError } : {}),
          last_ingest: lastIngest,
          parse_errors: service.parseErrorFiles(),
          ...(s.nodes === 0 ? { next: `ingest({"agent_id":"…","path":"${engine.root}"})` } : {}),
        },
        // TS/JS files whose calls the type checker resolved (the rest are name-resolved).
        type_checked: preciseReport(engine.preciseStatus()),
      };
    });
    ctx.hooks.shutdown.tapPromise('graph', async () => {
      closed = true;
      await engine.close();
    });
  },
});

export type { GraphService } from './service.ts';
