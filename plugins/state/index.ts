/**
 * The state plugin: provides the `state` service — where the memory, lock, trail and mission
 * families persist what agents share. Embedded by default (the workspace's SQLite store, beside the
 * graph); with `storage.url` in m1nd.config.ts or M1ND_STORE_URL set to `postgres://…`, team state
 * goes to PostgreSQL, shared by every server of every checkout of the repository, while the graph
 * and private claims stay local. Changes other servers make are pushed (LISTEN/NOTIFY) to clients
 * subscribed to `m1nd://team/{namespace}` (and to trail resources).
 */
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { repositoryIdentity } from './identity.ts';
import { PgStateStore } from './postgres.ts';
import { teamResource } from './resource.ts';
import { SqliteStateStore } from './sqlite.ts';
import { storeImportVerb } from './verbs/store_import.ts';
import type { StateService, StoreStatus } from './types.ts';

const Options = Type.Object({
  readCacheRows: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 20_000, description: 'Rows of team-store reads kept in memory while the change feed is up (0: none)' }),
});

/** How long a call waits for the team feedback mirror before ranking with the copy it has. */
const LEARNED_REFRESH_WAIT_MS = 1000;

export default definePlugin<{ readCacheRows: number }>({
  name: 'state',
  version: '0.1.0',
  description: 'The state store shared memory persists in: embedded SQLite by default, PostgreSQL for a team (storage.url).',
  requires: ['graph'],
  provides: ['state'],
  options: Options,
  apply(ctx) {
    const graph = ctx.service<GraphService>('graph');
    const local = new SqliteStateStore(() => graph.engine.memory, ctx.settings.storeDir, () => graph.engine.storeCreated());
    const url = ctx.settings.storeUrl;
    const team = url
      ? new PgStateStore({ url, tls: ctx.settings.storeTls, log: ctx.log, repository: () => repositoryIdentity(ctx.settings.workspaceRoot, ctx.settings.repositoryId), cacheRows: ctx.options.readCacheRows })
      : local;
    const service: StateService = { team, local };
    ctx.provide('state', service);
    ctx.registerResource(teamResource(team));
    ctx.registerVerb(storeImportVerb(service));

    // Trails other servers write reach this server's clients subscribed to them (the team resource watches by itself).
    team.onChange((change) => {
      if (change.remote && change.namespace === 'trails') ctx.resourceUpdated(`m1nd://trails/${encodeURIComponent(change.key)}`);
    });

    // Team feedback (learn scope team) goes to the team store too; ranking reads a mirror brought up to date before each call.
    const detachLearned = team.shared ? graph.learned.useTeamStore(team) : () => undefined;
    if (team.shared) {
      ctx.hooks.beforeCall.tapPromise('state', async () => {
        // From here on this call's reads see every write any server committed before it (read cache, feedback mirror).
        team.fence();
        let timer: NodeJS.Timeout | undefined;
        const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, LEARNED_REFRESH_WAIT_MS)));
        // A store that is away or slow leaves ranking on the last copy; the team verbs report the outage themselves.
        await Promise.race([graph.learned.refresh().catch((error: Error) => ctx.log.debug(`team feedback not refreshed: ${error.message}`)), wait]);
        clearTimeout(timer);
      });
    }

    ctx.hooks.health.tapPromise('state', async (report) => {
      const status: StoreStatus = await team.status();
      return { ...report, team_store: status };
    });
    ctx.hooks.shutdown.tapPromise('state', async () => {
      detachLearned();
      if (team !== local) await team.close();
      await local.close();
    });
  },
});
