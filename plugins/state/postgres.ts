/**
 * The team store on PostgreSQL (node-postgres): rows keyed by (repository, namespace, key) with a
 * version per row for compare-and-swap, written in transactions, and announced with NOTIFY to
 * every other server listening on the channel. Connection, migration and listening are lazy and
 * retried with backoff: while the database is away, every operation fails fast with
 * STORE_UNAVAILABLE and a retry hint, and nothing else of the server is affected.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { ErrorCodes, M1ndError, type Logger } from '../../core/index.ts';
import { CHANNEL, KNOWN_VERSION, migrate } from './migrations.ts';
import { isConnectionError, pgLib, redactUrl } from './postgres-connection.ts';
import { ReadCache } from './read-cache.ts';
import { round } from './sqlite.ts';
import type { StateChange, StateOps, StateRow, StateStore, StoreStatus, WriteCondition } from './types.ts';

export interface PgStoreOptions {
  url: string;
  /** node-postgres `ssl` options, passed through as given. */
  tls?: Record<string, unknown>;
  /** The repository identity keying this workspace's rows (computed once, lazily). */
  repository: () => Promise<string>;
  log: Logger;
  /** Rows the read cache may hold (0: every read goes to the database). */
  cacheRows?: number;
}

const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 5000;
type Queryable = Pick<pg.PoolClient, 'query'>;
type Raw = { key: string; value: unknown; version: string; updated_at: string };

export class PgStateStore implements StateStore {
  readonly kind = 'postgres' as const;
  readonly shared = true;
  private readonly pool: pg.Pool;
  private readonly appName = `m1nd:${randomBytes(6).toString('hex')}`;
  private readonly listeners = new Set<(c: StateChange) => void>();
  private readonly where: string;
  private readonly secret: string;
  private repo = '';
  private schemaVersion: number | null = null;
  private ready: Promise<void> | null = null;
  private failure: { attempt: number; retryAt: number; reason: string } | null = null;
  private listener: pg.Client | null = null;
  private listenTimer: NodeJS.Timeout | undefined;
  private listenAttempt = 0;
  private closed = false;
  private feedEpoch = 0;
  /** See StateStore.feed: non-zero while LISTEN is in place. */
  feed = 0;
  /** Reads served from memory while the feed is up (read-cache.ts). */
  readonly cache: ReadCache;
  // Fences (call starts) and the newest one the feed has caught up with; the barrier in flight.
  private fences = 0;
  private caughtUpTo = 0;
  private barrier: { fence: number; done: Promise<boolean> } | null = null;

  constructor(private readonly o: PgStoreOptions) {
    this.where = redactUrl(o.url);
    try {
      this.secret = decodeURIComponent(new URL(o.url).password);
    } catch {
      this.secret = '';
    }
    this.cache = new ReadCache(o.cacheRows ?? 0, () => this.feed, () => this.caughtUp());
    this.pool = new (pgLib().Pool)({ ...this.clientConfig(), max: 8, idleTimeoutMillis: 10_000 });
    // An idle client losing its connection must not crash the server; the next query reconnects.
    this.pool.on('error', (error) => o.log.warn(`team store ${this.where}: idle connection lost (${this.clean(error)})`));
  }

  private clientConfig(): pg.ClientConfig {
    return { connectionString: this.o.url, ...(this.o.tls ? { ssl: this.o.tls as pg.ClientConfig['ssl'] } : {}), application_name: this.appName, connectionTimeoutMillis: 3000, query_timeout: 15_000 };
  }

  /** An error message with any credential of the URL removed. */
  private clean(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    return this.secret ? message.split(this.secret).join('***') : message;
  }

  private unavailable(reason: string, retryInMs: number): M1ndError {
    const seconds = Math.max(1, Math.ceil(retryInMs / 1000));
    return new M1ndError(ErrorCodes.STORE_UNAVAILABLE, `the team store ${this.where} is unreachable (${reason}); nothing was written`, {
      hint: `retry this call in ${seconds}s (m1nd reconnects by itself); verbs on the local graph keep working meanwhile`,
      data: { store: this.where, retry_after_ms: Math.max(0, Math.round(retryInMs)) },
    });
  }

  /** Maps a driver error: connection faults become STORE_UNAVAILABLE and start the backoff. */
  private fault(error: unknown): Error {
    if (error instanceof M1ndError) return error;
    if (!isConnectionError(error)) return new Error(`team store ${this.where}: ${this.clean(error)}`);
    const attempt = (this.failure?.attempt ?? 0) + 1;
    const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (attempt - 1));
    this.failure = { attempt, retryAt: Date.now() + wait, reason: this.clean(error) };
    this.ready = null;
    return this.unavailable(this.failure.reason, wait);
  }

  /** Connects, checks identity and schema once; fails fast during a backoff window. */
  private connect(): Promise<void> {
    if (this.closed) return Promise.reject(new M1ndError(ErrorCodes.ENGINE_STORE_CLOSED, 'the team store was closed (server shutting down)', { hint: 'reconnect to the server' }));
    if (this.ready) return this.ready;
    if (this.failure && Date.now() < this.failure.retryAt) return Promise.reject(this.unavailable(this.failure.reason, this.failure.retryAt - Date.now()));
    const attempt = (async () => {
      if (!this.repo) this.repo = await this.o.repository();
      const client = await this.pool.connect();
      try {
        this.schemaVersion = await migrate(client);
      } finally {
        client.release();
      }
      if (this.failure) this.o.log.info(`team store ${this.where}: reconnected`);
      this.failure = null;
      this.listen();
    })();
    this.ready = attempt.catch((error: unknown) => {
      throw this.fault(error);
    });
    return this.ready;
  }

  private writable(): void {
    if (this.schemaVersion !== null && this.schemaVersion > KNOWN_VERSION) {
      throw new M1ndError(ErrorCodes.STORE_SCHEMA_NEWER, `the team store ${this.where} has schema version ${this.schemaVersion}; this m1nd knows up to ${KNOWN_VERSION} and will not write to it`, {
        hint: 'upgrade m1nd on this machine (reads still work)',
        data: { schema_version: this.schemaVersion, known: KNOWN_VERSION },
      });
    }
  }

  /** Runs a query on the pool (or a transaction's client), mapping faults. */
  private async q<R extends pg.QueryResultRow>(sql: string, params: unknown[], on?: Queryable): Promise<R[]> {
    await this.connect();
    try {
      return (await (on ?? this.pool).query<R>(sql, params)).rows;
    } catch (error) {
      throw this.fault(error);
    }
  }

  private ops(on?: Queryable): StateOps {
    const row = <T>(ns: string, r: Raw): StateRow<T> => ({ namespace: ns, key: r.key, value: r.value as T, version: Number(r.version), updatedAt: Number(r.updated_at) });
    const now = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
    return {
      // Each operation connects before reading this.repo (it is known once connected).
      get: async <T>(ns: string, key: string) => {
        await this.connect();
        const rows = await this.q<Raw>('SELECT key, value, version, updated_at FROM m1nd_state WHERE repo = $1 AND namespace = $2 AND key = $3', [this.repo, ns, key], on);
        return rows[0] ? row<T>(ns, rows[0]) : undefined;
      },
      list: async <T>(ns: string, prefix = '', limit = 1000) => {
        await this.connect();
        const rows = await this.q<Raw>(
          'SELECT key, value, version, updated_at FROM m1nd_state WHERE repo = $1 AND namespace = $2 AND key >= $3 AND key < $4 ORDER BY key LIMIT $5',
          [this.repo, ns, prefix, `${prefix}\uffff`, limit],
          on,
        );
        return rows.map((r) => row<T>(ns, r));
      },
      put: async <T>(ns: string, key: string, value: T, when?: WriteCondition) => {
        await this.connect();
        this.writable();
        this.cache.invalidate(ns);
        const json = JSON.stringify(value ?? null);
        const params = [this.repo, ns, key, json];
        const rows =
          when?.ifVersion === undefined
            ? await this.q<Raw>(
                `INSERT INTO m1nd_state (repo, namespace, key, value, updated_at) VALUES ($1, $2, $3, $4::jsonb, ${now})
                 ON CONFLICT (repo, namespace, key) DO UPDATE SET value = excluded.value, version = m1nd_state.version + 1, updated_at = excluded.updated_at
                 RETURNING key, value, version, updated_at`,
                params,
                on,
              )
            : when.ifVersion === null
              ? await this.q<Raw>(
                  `INSERT INTO m1nd_state (repo, namespace, key, value, updated_at) VALUES ($1, $2, $3, $4::jsonb, ${now})
                   ON CONFLICT (repo, namespace, key) DO NOTHING RETURNING key, value, version, updated_at`,
                  params,
                  on,
                )
              : await this.q<Raw>(
                  `UPDATE m1nd_state SET value = $4::jsonb, version = version + 1, updated_at = ${now}
                   WHERE repo = $1 AND namespace = $2 AND key = $3 AND version = $5 RETURNING key, value, version, updated_at`,
                  [...params, when.ifVersion],
                  on,
                );
        this.cache.invalidate(ns);
        return rows[0] ? row<T>(ns, rows[0]) : null;
      },
      delete: async (ns: string, key: string, when?: WriteCondition) => {
        await this.connect();
        this.writable();
        this.cache.invalidate(ns);
        const cond = when?.ifVersion === undefined || when.ifVersion === null ? '' : ' AND version = $4';
        const params = cond ? [this.repo, ns, key, when!.ifVersion] : [this.repo, ns, key];
        const rows = await this.q(`DELETE FROM m1nd_state WHERE repo = $1 AND namespace = $2 AND key = $3${cond} RETURNING key`, params, on);
        this.cache.invalidate(ns);
        return rows.length > 0;
      },
    };
  }

  get<T = unknown>(namespace: string, key: string) {
    return this.cache.through(namespace, `g\u0000${key}`, () => 1, () => this.ops().get<T>(namespace, key));
  }
  list<T = unknown>(namespace: string, prefix = '', limit = 1000) {
    return this.cache.through(namespace, `l\u0000${limit}\u0000${prefix}`, (rows) => rows.length, () => this.ops().list<T>(namespace, prefix, limit));
  }
  put<T = unknown>(namespace: string, key: string, value: T, when?: WriteCondition) {
    return this.ops().put<T>(namespace, key, value, when);
  }
  delete(namespace: string, key: string, when?: WriteCondition) {
    return this.ops().delete(namespace, key, when);
  }

  async transaction<T>(fn: (tx: StateOps) => Promise<T>): Promise<T> {
    await this.connect();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.fault(error);
    }
    let broken = false;
    const touched = new Set<string>();
    const ops = this.ops(client);
    const tx: StateOps = {
      get: ops.get,
      list: ops.list,
      put: (ns, key, value, when) => (touched.add(ns), ops.put(ns, key, value, when)),
      delete: (ns, key, when) => (touched.add(ns), ops.delete(ns, key, when)),
    };
    try {
      await client.query('BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      for (const ns of touched) this.cache.invalidate(ns);
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw this.fault(error);
    } finally {
      client.release(broken);
    }
  }

  stamp(namespace: string): Promise<string> {
    return this.cache.through(namespace, 's', () => 0, () => this.readStamp(namespace));
  }

  private async readStamp(namespace: string): Promise<string> {
    await this.connect();
    const rows = await this.q<{ n: number; t: string; v: string }>(
      'SELECT count(*)::int AS n, coalesce(max(updated_at), 0)::text AS t, coalesce(sum(version), 0)::text AS v FROM m1nd_state WHERE repo = $1 AND namespace = $2',
      [this.repo, namespace],
    );
    return `${rows[0].n}:${rows[0].t}:${rows[0].v}`;
  }

  fence(): void {
    this.fences++;
  }

  /**
   * A `SELECT 1` on the LISTEN connection: PostgreSQL signals listeners while a writer commits
   * (before the writer hears of its commit) and sends a session's pending notifications before
   * answering its next query, so once it returns every write committed before the fence has been
   * announced here — and its cache entries dropped. One barrier serves every fence before it.
   */
  caughtUp(): Promise<boolean> {
    const client = this.listener;
    const feed = this.feed;
    if (!client || feed === 0) return Promise.resolve(false);
    if (this.caughtUpTo >= this.fences) return Promise.resolve(true);
    if (this.barrier && this.barrier.fence >= this.fences) return this.barrier.done;
    const fence = this.fences;
    const done = client.query('SELECT 1').then(
      () => {
        if (this.feed !== feed) return false;
        this.caughtUpTo = Math.max(this.caughtUpTo, fence);
        return true;
      },
      () => false,
    );
    const barrier = { fence, done };
    this.barrier = barrier;
    void done.finally(() => {
      if (this.barrier === barrier) this.barrier = null;
    });
    return done;
  }

  onChange(listener: (change: StateChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Keeps one connection LISTENing; reconnects with backoff when it drops. */
  private listen(): void {
    if (this.listener || this.closed) return;
    const client = new (pgLib().Client)(this.clientConfig());
    this.listener = client;
    const retry = (error?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.feed = 0;
      client.removeAllListeners('notification');
      client.end().catch(() => undefined);
      if (this.closed) return;
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.listenAttempt++);
      if (error) this.o.log.warn(`team store ${this.where}: change feed lost (${this.clean(error)}); retrying in ${wait} ms`);
      this.listenTimer = setTimeout(() => {
        this.listenTimer = undefined;
        // Reconnecting through connect() also re-checks the schema; a failure schedules the next try.
        this.connect()
          .then(() => this.listen())
          .catch((e: unknown) => retry(e));
      }, wait);
      this.listenTimer.unref();
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('connection ended')));
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      try {
        const p = JSON.parse(msg.payload) as { repo: string; ns: string; key: string; op: 'put' | 'delete'; by: string };
        if (p.repo !== this.repo) return;
        // This server's own writes dropped their entries when they returned (or committed).
        if (p.by !== this.appName) this.cache.invalidate(p.ns);
        const change: StateChange = { namespace: p.ns, key: p.key, op: p.op, remote: p.by !== this.appName };
        for (const l of this.listeners) l(change);
      } catch {
        // a payload not written by m1nd's trigger: ignore it
      }
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(() => {
        this.listenAttempt = 0;
        // From now on every change is pushed: caches keyed by this id may trust the feed.
        if (this.listener === client) this.feed = ++this.feedEpoch;
      })
      .catch(retry);
  }

  async status(): Promise<StoreStatus> {
    const base = {
      kind: 'postgres' as const,
      location: this.where,
      known_schema_version: KNOWN_VERSION,
      read_cache: { max_rows: this.cache.maxRows, hits: this.cache.hits, misses: this.cache.misses, feed_live: this.feed !== 0 },
    };
    try {
      await this.connect();
      const t = performance.now();
      await this.q('SELECT 1', []);
      return { ...base, schema_version: this.schemaVersion, connected: true, round_trip_ms: round(performance.now() - t), repository: this.repo };
    } catch (error) {
      return { ...base, schema_version: this.schemaVersion, connected: false, round_trip_ms: null, ...(this.repo ? { repository: this.repo } : {}), error: this.clean(error) };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.feed = 0;
    this.cache.clear();
    if (this.listenTimer) clearTimeout(this.listenTimer);
    const l = this.listener;
    this.listener = null;
    this.listeners.clear();
    await Promise.all([l?.end().catch(() => undefined), this.pool.end().catch(() => undefined)]);
  }
}
