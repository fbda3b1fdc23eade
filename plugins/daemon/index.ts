/**
 * The daemon family: a persisted background monitor over the workspace (daemon_*), document
 * auto-ingest (auto_ingest_*), and the alerts both raise (alerts_*). Alerts live in the state store —
 * the team store when one is configured, so every server of the team shares them — and are pushed to
 * connected clients as MCP log messages and as updates of the `m1nd://alerts` resource. Provides the
 * `alerts` service (an AlertBook) for other plugins that want to raise alerts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { definePlugin } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { MemoryService } from '../memory/api.ts';
import type { StateService, StateStore } from '../state/api.ts';
import { AlertBook, ALERTS_NAMESPACE, type Alert } from './alert-book.ts';
import { AutoIngest } from './auto-ingest.ts';
import { Daemon } from './daemon.ts';
import type { DaemonRuntime } from './runtime.ts';
import { alertsAckVerb } from './verbs/alerts_ack.ts';
import { alertsListVerb } from './verbs/alerts_list.ts';
import { autoIngestStartVerb } from './verbs/auto_ingest_start.ts';
import { autoIngestStatusVerb } from './verbs/auto_ingest_status.ts';
import { autoIngestStopVerb } from './verbs/auto_ingest_stop.ts';
import { autoIngestTickVerb } from './verbs/auto_ingest_tick.ts';
import { daemonStartVerb } from './verbs/daemon_start.ts';
import { daemonStatusVerb } from './verbs/daemon_status.ts';
import { daemonStopVerb } from './verbs/daemon_stop.ts';
import { daemonTickVerb } from './verbs/daemon_tick.ts';

export const ALERTS_URI = 'm1nd://alerts';

/**
 * This checkout among those sharing the alerts: a random id kept in the machine-local store (it
 * survives restarts and a container's changing host name; no path reaches the team store). Before
 * the local store exists (nothing ingested), the machine's name and folder, hashed.
 */
function checkoutId(local: () => StateStore, exists: () => boolean, root: string): () => Promise<string> {
  let id: Promise<string> | null = null;
  return () => {
    if (!exists()) return Promise.resolve(createHash('sha1').update(`${hostname()}\0${root}`).digest('hex').slice(0, 12));
    id ??= (async () => {
      const store = local();
      const row = await store.get<string>('daemon', 'checkout');
      if (typeof row?.value === 'string') return row.value;
      await store.put('daemon', 'checkout', randomBytes(6).toString('hex'), { ifVersion: null });
      return (await store.get<string>('daemon', 'checkout'))!.value;
    })().catch((error: unknown) => {
      id = null;
      throw error;
    });
    return id;
  };
}
const RESOURCE_ROWS = 200;

export default definePlugin({
  name: 'daemon',
  version: '0.1.0',
  description: 'Background monitoring: the persisted daemon, document auto-ingest, and the alerts they raise.',
  requires: ['graph', 'state', 'memory'],
  provides: ['alerts'],
  apply(ctx) {
    const graph = ctx.service<GraphService>('graph');
    const state = ctx.service<StateService>('state');
    const memory = ctx.service<MemoryService>('memory');
    // A line logged outside any call reaches every session (inside a call, only the caller's):
    // alerts are everyone's news, so they are logged from the context this plugin was applied in.
    const outsideCalls = AsyncLocalStorage.snapshot();
    // Each opening of an alert is announced once by this server (a later write of the open alert —
    // another checkout confirming it, an acknowledgement — is no news). Bounded: the oldest go first.
    const announced = new Set<string>();
    const announce = (a: Alert) => {
      const opening = `${a.id}@${a.raised_at}`;
      if (announced.has(opening)) return;
      announced.add(opening);
      if (announced.size > 4000) announced.delete(announced.values().next().value!);
      outsideCalls(() => {
        const data = { alert_id: a.id, kind: a.kind, severity: a.severity, path: a.path, node: a.node, ...(a.audience ? { audience: a.audience } : {}) };
        const line = `alert ${a.id} ${a.kind}: ${a.message}`;
        // A private claim's alert reaches only the sessions that have called as its author.
        const log = a.audience ? ctx.log.to(a.audience) : ctx.log;
        if (a.severity === 'error') log.error(line, data);
        else if (a.severity === 'warning') log.warn(line, data);
        else log.info(line, data);
      });
    };
    // The embedded store exists once something was ingested; reading it must never create it.
    const readable = (store: StateStore) => () => store.kind === 'postgres' || graph.engine.storeExists();
    // A private claim's alert (it has an audience) stays in the local store, as the claim does.
    const alerts = new AlertBook(() => state.team, announce, (store) => readable(store)(), () => state.local, checkoutId(() => state.local, readable(state.local), graph.engine.root));
    const daemon = new Daemon({ graph, memory: () => memory, alerts, store: () => state.local, readable: readable(state.local), log: ctx.log });
    const autoIngest = new AutoIngest({ graph, store: () => state.local, readable: readable(state.local), log: ctx.log });
    const rt: DaemonRuntime = { daemon, alerts, autoIngest };
    ctx.provide('alerts', alerts);

    ctx.registerVerb(daemonStartVerb(rt));
    ctx.registerVerb(daemonStopVerb(rt));
    ctx.registerVerb(daemonStatusVerb(rt));
    ctx.registerVerb(daemonTickVerb(rt));
    ctx.registerVerb(alertsListVerb(rt));
    ctx.registerVerb(alertsAckVerb(rt));
    ctx.registerVerb(autoIngestStartVerb(rt));
    ctx.registerVerb(autoIngestStopVerb(rt));
    ctx.registerVerb(autoIngestStatusVerb(rt));
    ctx.registerVerb(autoIngestTickVerb(rt));

    ctx.registerResource({
      uri: ALERTS_URI,
      name: 'alerts',
      title: 'Open alerts',
      description: 'Open alerts (deleted/moved files, broken doc links, stale claims), newest first; subscribe to hear of new ones from any server',
      mimeType: 'application/json',
      read: async () => {
        // Resources have no agent: only alerts meant for everyone are shown.
        const open = (await alerts.all('')).filter((a) => a.status === 'open');
        const rows = open.slice(0, RESOURCE_ROWS).map((a) => ({ id: a.id, kind: a.kind, severity: a.severity, path: a.path, node: a.node, message: a.message, raised_at: new Date(a.raised_at).toISOString(), acked_by: Object.keys(a.acked_by) }));
        return { text: JSON.stringify({ open: open.length, alerts: rows, truncated: open.length > RESOURCE_ROWS }, null, 2) };
      },
      watch: (_vars, changed) => state.team.onChange((c) => c.namespace === ALERTS_NAMESPACE && changed()),
    });
    // Alerts another server raised (team store) reach this server's sessions as log lines too.
    state.team.onChange((c) => {
      if (!c.remote || c.namespace !== ALERTS_NAMESPACE || c.op !== 'put') return;
      void state.team.get<Alert>(ALERTS_NAMESPACE, c.key).then((row) => {
        if (row?.value.status === 'open' && row.value.count === 1 && Object.keys(row.value.acked_by).length === 0) announce(row.value);
      });
    });

    // Resume what was running when the server stopped, once the stored graph has loaded.
    let resumed = false;
    ctx.hooks.ready.tap('daemon', () => {
      if (resumed || !graph.writable) return;
      resumed = true;
      setImmediate(() => {
        void (async () => {
          await graph.fresh();
          await daemon.resume();
          await autoIngest.resume();
        })().catch((error: Error) => ctx.log.warn(`daemon: resuming failed: ${error.message}`));
      }).unref();
    });
    ctx.hooks.health.tapPromise('daemon', async (report) => {
      const s = await daemon.state();
      return { ...report, daemon: { active: s.active, watching: daemon.watching, queue: daemon.pending, auto_ingest_watching: autoIngest.watching } };
    });
    ctx.hooks.shutdown.tapPromise('daemon', async () => {
      await daemon.close();
      await autoIngest.close();
    });
    ctx.hooks.workflows.tap('daemon', (list) => [
      ...list,
      {
        name: 'watch the workspace while you work',
        when: 'a long session where files change under you (other agents, editors, git checkouts)',
        steps: [
          { verb: 'daemon_start', why: 'watch folders; changes re-ingested, deletions and stale claims raised' },
          { verb: 'alerts_list', why: 'what happened while you were not looking' },
          { verb: 'alerts_ack', why: 'hide what you handled (others still see it)' },
        ],
      },
    ]);
  },
});
