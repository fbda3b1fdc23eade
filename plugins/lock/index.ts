/**
 * The lock family: advisory baselines of graph regions that agents diff, rebase, watch and
 * release. Locks are stored in the workspace store and seen by every agent and server process;
 * m1nd hid these verbs, here they are advertised in the full tier.
 */
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateService } from '../state/api.ts';
import { LockBook, NAMESPACE, normalizedLock, type LockRecord } from './book.ts';
import { trackRecheck } from './rechecks.ts';
import { recheck } from './watch.ts';
import { createLockService } from './service.ts';
import { lockCreateVerb } from './verbs/lock_create.ts';
import { lockDiffVerb } from './verbs/lock_diff.ts';
import { lockRebaseVerb } from './verbs/lock_rebase.ts';
import { lockReleaseVerb } from './verbs/lock_release.ts';
import { lockWatchVerb } from './verbs/lock_watch.ts';

const Options = Type.Object({
  periodicSeconds: Type.Integer({ minimum: 5, default: 60, description: 'Re-check interval of locks watched "periodic"' }),
});

export default definePlugin<{ periodicSeconds: number }>({
  name: 'lock',
  version: '0.1.0',
  description: 'Advisory region locks: baselines of graph regions, diffed, rebased, watched, released.',
  requires: ['graph', 'state'],
  provides: ['locks'],
  options: Options,
  apply(ctx) {
    const graph = ctx.service<GraphService>('graph');
    ctx.registerVerb(lockCreateVerb);
    ctx.registerVerb(lockWatchVerb(ctx.catalog, ctx.options.periodicSeconds));
    ctx.registerVerb(lockDiffVerb);
    ctx.registerVerb(lockRebaseVerb);
    ctx.registerVerb(lockReleaseVerb);

    // Watches write events into the store: never on a read-only server.
    const store = ctx.service<StateService>('state').team;
    const book = new LockBook(store);
    // The `locks` service answers synchronously: the embedded store is read at once; a team store's
    // latest locks are kept here, re-read whenever any server changes one (its change feed).
    const current =
      store.kind === 'sqlite'
        ? () => graph.engine.memory.list<LockRecord>(NAMESPACE, 'lock_', 100_000).map((r) => normalizedLock(r.value))
        : () => book.latest;
    ctx.provide('locks', createLockService(current));
    if (store.kind !== 'sqlite') {
      const reread = () => void book.all().catch((error: unknown) => ctx.log.warn(`lock: locks not re-read: ${(error as Error).message}`));
      store.onChange((c) => c.namespace === NAMESPACE && reread());
      ctx.hooks.ready.tap('lock', reread);
    }
    const safely = (what: string, fn: () => Promise<unknown>) =>
      trackRecheck(store, fn).catch((error: unknown) => ctx.log.warn(`lock: ${what} re-check failed: ${(error as Error).message}`));
    let seenGeneration: number | null = null;
    ctx.hooks.afterCall.tap('lock', (call, outcome) => {
      if (!graph.writable || outcome.kind !== 'ok') return;
      const engine = graph.engine;
      if (call.name === 'learn') void safely('on_learn', () => recheck(engine, book, 'learn', (l) => l.strategy === 'on_learn'));
      if (seenGeneration === engine.generation) return;
      seenGeneration = engine.generation;
      void safely('on_ingest', () => recheck(engine, book, 'ingest', (l) => l.strategy === 'on_ingest' && l.checked_generation !== engine.generation));
    });

    let timer: NodeJS.Timeout | undefined;
    let ticking = false;
    ctx.hooks.boot.tap('lock', () => {
      seenGeneration = graph.engine.generation;
      if (!graph.writable) return;
      timer = setInterval(() => {
        if (ticking) return;
        ticking = true;
        graph
          .fresh()
          .then(() => safely('periodic', () => recheck(graph.engine, book, 'periodic', (l) => l.strategy === 'periodic')))
          .catch((error: unknown) => ctx.log.warn(`lock: periodic re-check skipped: ${(error as Error).message}`))
          .finally(() => (ticking = false));
      }, ctx.options.periodicSeconds * 1000);
      timer.unref();
    });
    ctx.hooks.shutdown.tapPromise('lock', async () => {
      if (timer) clearInterval(timer);
    });

    ctx.hooks.workflows.tap('lock', (list) => [
      ...list,
      {
        name: 'guard a region while editing',
        when: 'edit: see what changed around code you (or other agents) are changing',
        steps: [
          { verb: 'lock_create', why: 'baseline the region; see other agents’ overlapping locks' },
          { verb: 'lock_watch', why: 'optional: re-check on ingest, learn or a timer' },
          { verb: 'lock_diff', why: 'nodes, edges, files and lines changed since the baseline' },
          { verb: 'lock_rebase', why: 'accept the changes as the new baseline' },
          { verb: 'lock_release', why: 'when done' },
        ],
      },
    ]);
  },
});
