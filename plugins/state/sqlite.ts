/**
 * The embedded state store: the graph store's `memory` table (SQLite, one file per workspace,
 * shared by every server process on the machine). A row's version is its `updated_at`, which the
 * table makes grow with every write of the key. Transactions run their callback against buffered
 * writes and commit them in one synchronous SQLite transaction, re-checking every condition there,
 * so no other call's writes interleave with a half-applied transaction.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateChange, StateOps, StateRow, StateStore, StoreStatus, WriteCondition } from './types.ts';

type Memory = GraphService['engine']['memory'];
type Pending = { op: 'put'; value: unknown; when?: WriteCondition; row: StateRow } | { op: 'delete'; when?: WriteCondition };

const holds = (row: StateRow | undefined, when?: WriteCondition) =>
  when?.ifVersion === undefined ? true : when.ifVersion === null ? row === undefined : row?.version === when.ifVersion;

export class SqliteStateStore implements StateStore {
  readonly kind = 'sqlite' as const;
  readonly shared = false;
  readonly feed = 0;
  private readonly listeners = new Set<(c: StateChange) => void>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly memory: () => Memory,
    private readonly location: string,
    /** Whether the store file exists yet (health does not create it: the first write does). */
    private readonly created: () => boolean = () => true,
  ) {}

  private row<T>(namespace: string, key: string): StateRow<T> | undefined {
    const e = this.memory().get<T>(namespace, key);
    return e ? { namespace, key, value: e.value, version: e.updatedAt, updatedAt: e.updatedAt } : undefined;
  }

  private emit(namespace: string, key: string, op: 'put' | 'delete') {
    for (const l of this.listeners) l({ namespace, key, op, remote: false });
  }

  // Reads of a store not created yet find nothing, and do not create it (a health check reads state).
  async get<T = unknown>(namespace: string, key: string): Promise<StateRow<T> | undefined> {
    return this.created() ? this.row<T>(namespace, key) : undefined;
  }

  async list<T = unknown>(namespace: string, prefix = '', limit = 1000): Promise<StateRow<T>[]> {
    if (!this.created()) return [];
    return this.memory()
      .list<T>(namespace, prefix, limit)
      .map((e) => ({ namespace, key: e.key, value: e.value, version: e.updatedAt, updatedAt: e.updatedAt }));
  }

  async put<T = unknown>(namespace: string, key: string, value: T, when?: WriteCondition): Promise<StateRow<T> | null> {
    const memory = this.memory();
    const written = memory.transaction(() => {
      if (!holds(this.row(namespace, key), when)) return null;
      const e = memory.set(namespace, key, value);
      return { namespace, key, value, version: e.updatedAt, updatedAt: e.updatedAt };
    });
    if (written) this.emit(namespace, key, 'put');
    return written;
  }

  async delete(namespace: string, key: string, when?: WriteCondition): Promise<boolean> {
    const memory = this.memory();
    const gone = memory.transaction(() => holds(this.row(namespace, key), when) && memory.delete(namespace, key));
    if (gone) this.emit(namespace, key, 'delete');
    return gone;
  }

  transaction<T>(fn: (tx: StateOps) => Promise<T>): Promise<T> {
    // One transaction of this process at a time; other processes are kept out by SQLite's own lock at commit.
    const run = this.queue.then(() => this.runTransaction(fn));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runTransaction<T>(fn: (tx: StateOps) => Promise<T>): Promise<T> {
    const pending = new Map<string, { namespace: string; key: string; p: Pending }>();
    const id = (ns: string, key: string) => `${ns}\u0000${key}`;
    const seen = (ns: string, key: string): StateRow | undefined => {
      const p = pending.get(id(ns, key))?.p;
      if (!p) return this.row(ns, key);
      return p.op === 'delete' ? undefined : { namespace: ns, key, value: p.value, version: -1, updatedAt: Date.now() };
    };
    const tx: StateOps = {
      get: async <V>(ns: string, key: string) => seen(ns, key) as StateRow<V> | undefined,
      list: async <V>(ns: string, prefix = '', limit = 1000) => {
        const rows = new Map((await this.list<V>(ns, prefix, limit + pending.size)).map((r) => [r.key, r] as const));
        for (const { namespace, key, p } of pending.values()) {
          if (namespace !== ns || !key.startsWith(prefix)) continue;
          if (p.op === 'delete') rows.delete(key);
          else rows.set(key, { namespace, key, value: p.value as V, version: -1, updatedAt: Date.now() });
        }
        return [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, limit);
      },
      put: async <V>(ns: string, key: string, value: V, when?: WriteCondition) => {
        if (!holds(seen(ns, key), when)) return null;
        // Its version is filled in at commit (the row object is the one returned here).
        const row: StateRow<V> = { namespace: ns, key, value, version: -1, updatedAt: Date.now() };
        pending.set(id(ns, key), { namespace: ns, key, p: { op: 'put', value, when, row } });
        return row;
      },
      delete: async (ns: string, key: string, when?: WriteCondition) => {
        if (!seen(ns, key) || !holds(seen(ns, key), when)) return false;
        pending.set(id(ns, key), { namespace: ns, key, p: { op: 'delete', when } });
        return true;
      },
    };
    const result = await fn(tx);
    if (pending.size === 0) return result;
    const memory = this.memory();
    memory.transaction(() => {
      for (const { namespace, key, p } of pending.values()) {
        // A condition read during the callback must still hold at commit (another process may have written since).
        if (p.when?.ifVersion !== undefined && !holds(this.row(namespace, key), p.when)) {
          throw new M1ndError(ErrorCodes.STATE_CONFLICT, `"${key}" in ${namespace} changed while this call was updating it; nothing was written`, {
            hint: 'repeat the call: it reads the current state again',
            data: { namespace, key },
          });
        }
        if (p.op === 'put') {
          const e = memory.set(namespace, key, p.value);
          p.row.version = p.row.updatedAt = e.updatedAt;
        } else memory.delete(namespace, key);
      }
    });
    for (const { namespace, key, p } of pending.values()) this.emit(namespace, key, p.op);
    return result;
  }

  async stamp(namespace: string): Promise<string> {
    return this.memory().stamp(namespace);
  }

  fence(): void {
    // nothing to wait for: no cache trusts this store's feed
  }

  async caughtUp(): Promise<boolean> {
    return false;
  }

  onChange(listener: (change: StateChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async status(): Promise<StoreStatus> {
    const t = performance.now();
    // Not created yet (a workspace never written to): nothing to ping, and a health check creates nothing.
    if (!this.created()) return { kind: 'sqlite', location: this.location, schema_version: null, known_schema_version: null, connected: true, round_trip_ms: null, created: false };
    try {
      this.memory().stamp('state.ping');
      return { kind: 'sqlite', location: this.location, schema_version: null, known_schema_version: null, connected: true, round_trip_ms: round(performance.now() - t) };
    } catch (error) {
      return { kind: 'sqlite', location: this.location, schema_version: null, known_schema_version: null, connected: false, round_trip_ms: null, error: (error as Error).message };
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

export const round = (ms: number) => Math.round(ms * 100) / 100;
