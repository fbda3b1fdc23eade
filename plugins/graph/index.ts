/**
 * The code graph engine as a service plugin: loads the workspace's stored graph in the background
 * once the server is up (never re-ingesting; graph verbs arriving first wait for it), watches the workspace so edited files are re-ingested
 * before the next query, reports the graph in health, and closes the store at shutdown.
 */
import { definePlugin, Type, type CallState } from '../../core/index.ts';
import { CodeGraphEngine } from './engine/engine.ts';
import { createGraphService } from './service.ts';
import { workspacePathGate } from './workspace-paths-gate.ts';
import { preciseReport } from './engine/ts-program/precise-pass.ts';

const Options = Type.Object({
  watch: Type.Boolean({ default: true, description: 'Watch the workspace and re-ingest edited files before the next query' }),
  maxFileBytes: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  exclude: Type.Array(Type.String(), { default: [], description: 'Extra glob patterns never ingested' }),
  gitMaxCommits: Type.Integer({ minimum: 0, default: 2000 }),
  typeCheck: Type.Boolean({ default: true, description: 'Upgrade TS/JS call edges with the TypeScript checker (in a worker thread)' }),
  parseWorkers: Type.Optional(Type.Integer({ minimum: 0, description: 'Parse worker threads of an ingest (default one per core; 0: the main thread, yielding between files)' })),
  workerNice: Type.Integer({ minimum: 0, maximum: 19, default: 10, description: 'How much lower the parse workers run than the main thread (Linux nice, per thread; 0: the same)' }),
});

/** A quiet moment for the index warm-up: this long without a call in flight. */
const QUIET_MS = 250;
/** The warm-up waits for a quiet moment at most this long (an agent calling without pause). */
const MAX_WARM_DEFER_MS = 20_000;

export default definePlugin<{ watch: boolean; maxFileBytes: number; exclude: string[]; gitMaxCommits: number; typeCheck: boolean; parseWorkers?: number; workerNice: number }>({
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
      workerNice: ctx.options.workerNice,
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
    // The seek index and PageRank build on first use (~0.3 s on 25K nodes): build them off the call
    // path, in a quiet moment — no call in flight for QUIET_MS — so that the calls right after a load
    // (an agent's first few) do not share the cores with them (a verb that needs them builds them itself).
    const active = new Set<CallState>();
    let lastActivity = 0;
    ctx.hooks.beforeCall.tap('graph:activity', (call) => {
      active.add(call);
      lastActivity = performance.now();
    });
    const warmSoon = () => {
      const asked = performance.now();
      const tick = () => {
        if (closed) return;
        const now = performance.now();
        if ((active.size > 0 || now - lastActivity < QUIET_MS) && now - asked < MAX_WARM_DEFER_MS) {
          setTimeout(tick, QUIET_MS).unref();
          return;
        }
        engine.warmIndexes().catch((error: Error) => ctx.log.debug(`index warm-up skipped: ${error.message}`));
      };
      setImmediate(tick).unref();
    };

    // The stored graph loads in the background once a client is initialized (the `ready` hook):
    // initialize and tools/list never wait for it; a verb that needs the graph waits (beforeCall, below), and the
    // engine queues its own operations (ingest, freshness checks) behind the load.
    let loading: Promise<void> | null = null;
    let loadError: string | null = null;
    const startWatching = async () => {
      if (closed || !writable || !ctx.options.watch) return;
      try {
        await engine.watch();
        watching = true;
      } catch (error) {
        // No watcher (e.g. inotify limits): the graph still works; edits show up at the next ingest.
        watchError = (error as Error).message;
        ctx.log.warn(`graph: file watcher unavailable, edited files are picked up by the next ingest: ${watchError}`);
      }
    };
    ctx.hooks.ready.tap('graph', () => {
      // A macrotask later: requests already received (tools/list right after initialize) are answered first.
      loading = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => engine.open())
        .then((opened) => {
          ctx.log.info(`graph: generation ${opened.generation}, ${opened.nodes} nodes, ${opened.edges} edges (${opened.elapsedMs} ms)`);
          if (opened.loaded) warmSoon();
        })
        .catch((error: Error) => {
          // The verbs report it: their freshness check opens the store again and fails with the engine's error.
          loadError = error.message;
          ctx.log.error(`graph: loading the stored graph failed: ${loadError}`);
        })
        .finally(() => {
          loading = null;
          // The watcher's initial scan runs after the load, off the first call's path.
          if (!closed) setImmediate(() => void startWatching());
        });
    });
    // Plugins that consume the graph service: their verbs wait for the load, with progress.
    let consumers: Set<string> | undefined;
    // A callback tap: a call arriving after the load (every call but the first few) passes synchronously.
    ctx.hooks.beforeCall.tapAsync('graph', (call, done) => {
      const pending = loading;
      if (!pending) return done();
      consumers ??= new Set(['graph', ...ctx.catalog.plugins().filter((p) => p.requires.includes('graph')).map((p) => p.name)]);
      if (!consumers.has(call.verb.plugin)) return done();
      waitForLoad(call, pending).then(() => done(), done);
    });
    const waitForLoad = async (call: CallState, pending: Promise<unknown>) => {
      await call.ctx.progress(0, 1, 'graph: loading the stored graph');
      await pending;
      await call.ctx.progress(1, 1, 'graph: stored graph loaded');
    };
    // Reads by an agent on the federated view check `<repo>::path` inside that repository's root.
    ctx.hooks.gate.tap('graph:workspace-paths', workspacePathGate((call) => (call.effect === 'read' ? service.federation.serviceFor(call.ctx.agentId) : service).engine));
    ctx.hooks.afterCall.tap('graph', (call, outcome) => {
      if (active.delete(call)) lastActivity = performance.now();
      if (call.name === 'ingest' && outcome.kind === 'ok') {
        lastIngest = new Date().toISOString();
        warmSoon();
      }
    });
    ctx.hooks.health.tapPromise('graph', async (report) => {
      // Status reports the loaded graph (trust modes advise ingest on an empty one): wait for the load.
      if (loading) await loading;
      // No store yet (never ingested): nothing to open, and health creates nothing.
      if (!engine.storeCreated()) {
        const next = writable ? `ingest({"agent_id":"…","path":"${engine.root}"})` : 'ingest with a writable server (this one is read-only)';
        return { ...report, graph: { loaded: false, node_count: 0, edge_count: 0, store_dir: engine.storeDir, store: 'absent', next } };
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
          ...(loadError ? { load_error: loadError } : {}),
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
      // Never close the store under a load still reading it.
      if (loading) await loading;
      await service.federation.close();
      await engine.close();
    });
  },
});

export type { GraphService } from './service.ts';
