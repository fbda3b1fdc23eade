/**
 * Team feedback in a shared store (the seam to the state plugin's team store). The graph plugin
 * cannot depend on the state plugin (state loads after graph and requires it), so it declares
 * here what it needs of a shared store; the state plugin hands its PostgreSQL store to
 * `graph.learned.useTeamStore(…)` when a team store is configured. Without one, the team layer
 * stays in the local store (learned.ts).
 *
 * Ranking reads stay synchronous: they read a mirror of the team layer, reloaded before a call
 * when the store's change feed said the namespace changed (or, while the feed is down, when its
 * stamp differs). Feedback is written in one transaction that first takes the `rev` row with a
 * compare-and-swap (so concurrent learners on any machine serialise on it and none loses another's
 * increment), then reads the rows it changes and writes them back.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { FeedbackEvent, LearnInput, LearnReport } from './learned.ts';
import { eventKey, Layer, MAX_EVENTS } from './learned-layer.ts';

/** A stored row as the shared store returns it. */
export interface SharedRow<T = unknown> {
  key: string;
  value: T;
  version: number;
}

/** Row operations, on the store or inside one of its transactions. */
export interface SharedOps {
  get<T = unknown>(namespace: string, key: string): Promise<SharedRow<T> | undefined>;
  list<T = unknown>(namespace: string, prefix?: string, limit?: number): Promise<SharedRow<T>[]>;
  /** Null when the condition fails: `ifVersion: null` = only if absent, a number = only at that version. */
  put<T = unknown>(namespace: string, key: string, value: T, when?: { ifVersion?: number | null }): Promise<SharedRow<T> | null>;
  delete(namespace: string, key: string, when?: { ifVersion?: number | null }): Promise<boolean>;
}

/** What team feedback needs of a shared store (the state plugin's `StateStore` has this shape). */
export interface LearnedTeamStore extends SharedOps {
  /** 0 while other servers' changes are not pushed to `onChange`; else an id that changes at each reconnection of the feed. */
  readonly feed: number;
  transaction<T>(fn: (tx: SharedOps) => Promise<T>): Promise<T>;
  /** True once the feed has delivered every change committed before the current call began; false when it cannot say. */
  caughtUp(): Promise<boolean>;
  /** Changes whenever a row of the namespace does. */
  stamp(namespace: string): Promise<string>;
  onChange(listener: (change: { namespace: string }) => void): () => void;
}

/** Attempts of a feedback transaction that lost the `rev` race before the call fails. */
const MAX_ATTEMPTS = 8;

/** The team layer mirrored from a shared store (see the file comment). */
export class TeamLearned {
  layer: Layer;
  rev = 0;
  events: FeedbackEvent[] = [];
  private loadedStamp: string | null = null;
  private dirty = true;
  private loadedFeed = 0;
  private loading: Promise<void> | null = null;
  private readonly stop: () => void;

  constructor(
    private readonly store: LearnedTeamStore,
    private readonly namespace: string,
  ) {
    this.layer = new Layer(namespace);
    this.stop = store.onChange((c) => {
      if (c.namespace === namespace) this.dirty = true;
    });
  }

  detach(): void {
    this.stop();
  }

  /** Brings the mirror up to date: nothing to do when the feed is live, caught up, and said nothing of the namespace. */
  async refresh(): Promise<void> {
    for (let look = 0; look < 3; look++) {
      const feed = this.store.feed;
      if (feed !== 0 && feed === this.loadedFeed && (await this.store.caughtUp()) && !this.dirty && this.store.feed === feed) return;
      if (this.loading) {
        // A load that began before this call may predate a change it must see: look again after it.
        await this.loading;
        continue;
      }
      this.loading = this.load().finally(() => (this.loading = null));
      return this.loading;
    }
  }

  private async load(): Promise<void> {
    // Cleared first: a change announced while loading marks it dirty again for the next call.
    this.dirty = false;
    const feed = this.store.feed;
    try {
      const stamp = await this.store.stamp(this.namespace);
      if (stamp === this.loadedStamp) {
        this.loadedFeed = feed;
        return;
      }
      const rows = await this.store.list(this.namespace, '', 10_000_000);
      const layer = new Layer(this.namespace).loadRows(rows);
      const events = rows.filter((r) => r.key.startsWith('event:')).map((r) => r.value as FeedbackEvent);
      const rev = Number(rows.find((r) => r.key === 'rev')?.value ?? 0);
      this.layer = layer;
      this.events = events.slice(-MAX_EVENTS);
      this.rev = rev;
      this.loadedStamp = stamp;
      this.loadedFeed = feed;
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }

  /** Records team feedback in the shared store (one transaction, retried when another learner won the `rev` row). */
  async record(input: LearnInput, now: number): Promise<LearnReport> {
    for (let attempt = 1; ; attempt++) {
      const report: LearnReport = { nodes: [], edges: [], revision: 0 };
      const done = await this.store.transaction(async (tx) => {
        const revRow = await tx.get<number>(this.namespace, 'rev');
        const rev = Number(revRow?.value ?? 0) + 1;
        // Taking `rev` first: a concurrent learner blocks here until this one commits, then fails its CAS and retries.
        if (!(await tx.put(this.namespace, 'rev', rev, { ifVersion: revRow?.version ?? null }))) return false;
        const layer = new Layer(this.namespace);
        const current = await Promise.all(Layer.keysOf(input).map((key) => tx.get(this.namespace, key)));
        layer.loadRows(current.filter((r) => r !== undefined));
        const { rows, event } = layer.apply(input, now, report);
        for (const [key, value] of rows) await tx.put(this.namespace, key, value);
        await tx.put(this.namespace, eventKey(now), event);
        const events = await tx.list(this.namespace, 'event:', MAX_EVENTS * 2);
        for (const old of events.slice(0, Math.max(0, events.length - MAX_EVENTS))) await tx.delete(this.namespace, old.key);
        report.revision = rev;
        return true;
      });
      if (done) {
        this.dirty = true;
        return report;
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new M1ndError(ErrorCodes.STATE_CONFLICT, `other servers recorded team feedback ${MAX_ATTEMPTS} times while this call tried to; nothing was written`, {
          hint: 'repeat the call',
        });
      }
    }
  }
}
