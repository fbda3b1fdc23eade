/**
 * The team dashboard's server side: a read API under /api/ (overview, agents, memory, locks, alerts,
 * graph, file, impact, why), a live feed of Server-Sent Events, and the built browser app (dist/ui),
 * all served by the HTTP transport as plugin routes. Every route reuses a service or runs a verb
 * through the host's dispatch; the route modules load on the first request, so an MCP server that
 * nobody opens a dashboard on pays only for an `afterCall` tap that counts calls.
 */
import { definePlugin, ROUTE_CALL_PREFIX, Type, type CallState, type HttpRouteRequest, type HttpRouteResponse } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { LockService } from '../lock/api.ts';
import type { MemoryService } from '../memory/api.ts';
import type { StateService } from '../state/api.ts';
import { SECURITY_HEADERS, type DashboardContext } from './context.ts';
import { DashboardFeed } from './feed.ts';
import { CallStats, type Outcome } from './stats.ts';

const OUTCOMES: readonly Outcome[] = ['ok', 'refused', 'error'];
/** Epoch ms at `performance.now()` 0: a call's end in epoch ms from its performance-clock start and elapsed time. */
const CLOCK_ORIGIN = performance.timeOrigin;

const Options = Type.Object({
  assetsDir: Type.Optional(Type.String({ maxLength: 4096, description: 'Folder of the built browser app (default: dist/ui of the m1nd package)' })),
});

/** Namespaces whose changes the feed announces, and under which event. */
const WATCHED = new Map<string, 'memory' | 'lock' | 'alert'>([
  ['memory.claims', 'memory'],
  ['memory.missions', 'memory'],
  ['locks', 'lock'],
  ['alerts', 'alert'],
]);

export default definePlugin<{ assetsDir?: string }>({
  name: 'dashboard',
  version: '0.1.0',
  description: 'Team dashboard over HTTP: read API, live events and the browser app (served by `m1nd serve --http` and `m1nd ui`).',
  requires: ['graph', 'state', 'memory', 'locks'],
  options: Options,
  apply(ctx) {
    // Statistics outlive hot reloads: they are kept in the host's session store, not in this generation.
    const stats = ctx.session.state('\u0000dashboard', 'call-stats', () => new CallStats());
    const feed = new DashboardFeed();
    const graph = ctx.service<GraphService>('graph');
    const state = ctx.service<StateService>('state');
    const dash: DashboardContext = {
      graph,
      state,
      memory: ctx.service<MemoryService>('memory'),
      locks: ctx.service<LockService>('locks'),
      catalog: ctx.catalog,
      settings: ctx.settings,
      stats,
      feed,
      log: ctx.log,
      assetsDir: ctx.options.assetsDir,
      version: '0.1.0',
    };

    // A new graph generation (an ingest by a call, the watcher or another server) is a `graph` event.
    let seenGeneration = -1;
    const checkGeneration = () => {
      const generation = graph.engine.generation;
      if (generation === seenGeneration) return;
      if (seenGeneration !== -1) feed.publish('graph', { kind: 'ingest', id: String(generation) });
      seenGeneration = generation;
    };
    feed.onTick = checkGeneration;
    ctx.hooks.boot.tap('dashboard', () => void (seenGeneration = graph.engine.generation));
    ctx.hooks.afterCall.tap('dashboard', (call, outcome) => {
      const connectionId = call.ctx.connectionId;
      // The dashboard's own reads (routes invoking verbs) are not an agent's activity.
      if (connectionId !== undefined && connectionId.startsWith(ROUTE_CALL_PREFIX)) return;
      const kind = outcome.kind === 'ok' ? 0 : outcome.kind === 'refused' ? 1 : 2;
      // When it ended, from the pipeline's own clock: no clock read, no object per call (the ring folds later).
      const at = CLOCK_ORIGIN + call.startedAt + outcome.elapsedMs;
      stats.add(
        call.ctx.agentId,
        call.name,
        outcome.elapsedMs,
        kind,
        at,
        call.meta.resultTokens,
        // Counting tokens costs CPU: only for calls over HTTP, where a dashboard can be looking.
        connectionId !== undefined ? resultText(call) : undefined,
        connectionId,
        outcome.kind === 'ok' ? undefined : { code: outcome.error.code, message: outcome.error.message },
      );
      if (!feed.active) return;
      feed.publish('call', { at: new Date(at).toISOString(), agent_id: call.ctx.agentId, verb: call.name, ms: Math.round(outcome.elapsedMs * 100) / 100, outcome: OUTCOMES[kind] });
      checkGeneration();
    });
    // Claims, missions, locks and alerts written by any agent (or another server of a team store).
    const listen = (store: StateStore) =>
      store.onChange((c) => {
        const event = WATCHED.get(c.namespace);
        if (event && feed.active) feed.publish(event, { kind: c.op, id: c.key, ...(c.namespace === 'memory.missions' ? { what: 'mission' } : c.namespace === 'memory.claims' ? { what: 'claim' } : {}) });
      });
    const detach = [listen(state.team), ...(state.local !== state.team ? [listen(state.local)] : [])];
    ctx.hooks.shutdown.tapPromise('dashboard', async () => {
      for (const d of detach) d();
      feed.closeAll();
    });

    /** A GET route whose module loads on its first request. */
    const get = (path: string, handler: (req: HttpRouteRequest, res: import('node:http').ServerResponse) => Promise<HttpRouteResponse | void>, access: 'token' | 'public' = 'token') =>
      ctx.registerHttpRoute({ method: 'GET', path, access, handler, headers: SECURITY_HEADERS });

    get('/', async () => (await import('./routes/assets.ts')).index(dash), 'public');
    get('/index.html', async () => (await import('./routes/assets.ts')).index(dash), 'public');
    get('/assets/*', async (req) => (await import('./routes/assets.ts')).asset(dash, req.params['*'] ?? ''), 'public');
    get('/api/overview', async () => (await import('./routes/overview.ts')).overview(dash));
    get('/api/agents', async (req) => (await import('./routes/agents.ts')).agents(dash, req));
    get('/api/memory', async (req) => (await import('./routes/memory.ts')).memory(dash, req));
    get('/api/locks', async () => (await import('./routes/locks.ts')).locks(dash));
    get('/api/alerts', async (req) => (await import('./routes/alerts.ts')).alerts(req));
    ctx.registerHttpRoute({ method: 'POST', path: '/api/alerts/:id/ack', headers: SECURITY_HEADERS, handler: async (req) => (await import('./routes/alerts.ts')).ackAlert(req) });
    get('/api/graph/search', async (req) => (await import('./routes/graph.ts')).search(dash, req));
    get('/api/graph/neighbourhood', async (req) => (await import('./routes/graph.ts')).neighbourhood(dash, req));
    get('/api/file', async (req) => (await import('./routes/file.ts')).file(dash, req));
    get('/api/impact', async (req) => (await import('./routes/verbs.ts')).impact(req));
    get('/api/why', async (req) => (await import('./routes/verbs.ts')).why(req));
    get('/api/events', async (_req, res) => (await import('./routes/events.ts')).events(dash, res));
  },
});

type StateStore = StateService['team'];

/** The result text as sent (for its token count), when the pipeline kept it. */
function resultText(call: CallState): string | undefined {
  return call.meta.sent?.text ?? call.meta.shaped?.text;
}
