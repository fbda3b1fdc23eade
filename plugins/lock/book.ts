/**
 * Where locks live: the state store (namespace `locks`, one row per lock keyed by its id; the team
 * store when one is set, so locks are seen across machines). A lock's row holds its region (node ids,
 * paths and lines: what overlap checks read); its baseline (hashes, edges, file hashes: ~1 MB for a
 * region of 1,500 nodes) is kept in `locks.baselines` under the same key (baseline-rows.ts), read only to diff. Every
 * agent and server sees every lock, but only the owning agent may diff, rebase, watch or release one.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { StateStore } from '../state/api.ts';
import type { Snapshot } from './baseline.ts';
import type { RegionSpec } from './region.ts';
import { deleteBaseline, putBaseline, readBaseline } from './baseline-rows.ts';
import { rechecksSettled } from './rechecks.ts';

export const NAMESPACE = 'locks';
/** Nodes held by exclusive locks. */
export const HOLDS = 'locks.nodes';
/** Locks one agent may hold. */
export const MAX_LOCKS_PER_AGENT = 32;
/** Watch events kept per lock (newest last). */
export const MAX_EVENTS = 20;

export const STRATEGIES = ['manual', 'on_ingest', 'on_learn', 'periodic'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** A change a watch noticed. */
export interface WatchEvent {
  at: number;
  trigger: 'ingest' | 'learn' | 'periodic';
  generation: number;
  counts: Record<string, number>;
  files: string[];
}

/** A node of a lock's region, as overlap checks read it. */
export interface HeldNode {
  id: string;
  path: string;
  lines: [number, number] | null;
}

/** A lock's region as captured by its baseline. */
export interface HeldRegion {
  generation: number;
  truncated: boolean;
  nodes: HeldNode[];
}

/** The region a baseline captured. */
export function heldRegion(s: Snapshot): HeldRegion {
  return { generation: s.generation, truncated: s.truncated, nodes: Object.values(s.nodes).map((n) => ({ id: n.id, path: n.path, lines: n.lines })) };
}

/** A lock as read: one stored before baselines had their own rows carries its baseline inline, and its region is made from it. */
export function normalizedLock(r: LockRecord): LockRecord {
  if (!r.region && r.baseline) r.region = heldRegion(r.baseline);
  return r;
}

/** A lock as stored. */
export interface LockRecord {
  lock_id: string;
  agent_id: string;
  spec: RegionSpec;
  strategy: Strategy;
  region: HeldRegion;
  /** Only in locks stored by an older version (moved to `locks.baselines` on their next save). */
  baseline?: Snapshot;
  /** Graph generation the watch last re-checked. */
  checked_generation: number;
  events: WatchEvent[];
  created_at: number;
  rebased_at?: number;
  /** Holds its nodes: no other exclusive lock may include them (on any server sharing the store). */
  exclusive?: boolean;
}

const conflict = (message: string, data: Record<string, unknown>) =>
  new M1ndError(ErrorCodes.STATE_CONFLICT, message, { hint: 'repeat the call: it reads the current locks again', data });

/** A node held by an exclusive lock (namespace `locks.nodes`, keyed by node id: one holder per node). */
export interface NodeHold {
  lock_id: string;
  agent_id: string;
}

const byAge = (a: LockRecord, b: LockRecord) => a.created_at - b.created_at || a.lock_id.localeCompare(b.lock_id);

/** Every lock on the workspace. */
export class LockBook {
  // Versions of the locks read through this book: saves compare-and-swap against them.
  private readonly versions = new Map<string, number>();
  /** The locks as last read (what the synchronous `locks` service answers from on a team store). */
  latest: LockRecord[] = [];

  constructor(private readonly store: StateStore) {}

  /** All locks, oldest first. */
  async all(): Promise<LockRecord[]> {
    const rows = await this.store.list<LockRecord>(NAMESPACE, 'lock_', 100_000);
    for (const r of rows) this.versions.set(r.key, r.version);
    this.latest = rows.map((r) => normalizedLock(r.value)).sort(byAge);
    return this.latest;
  }

  /** The locks an agent holds. */
  async held(agentId: string): Promise<LockRecord[]> {
    return (await this.all()).filter((l) => l.agent_id === agentId);
  }

  /** A lock the calling agent owns; STATE_NOT_FOUND / STATE_NOT_OWNER otherwise. */
  async owned(agentId: string, lockId: string): Promise<LockRecord> {
    await rechecksSettled(this.store);
    const row = await this.store.get<LockRecord>(NAMESPACE, lockId);
    if (row) this.versions.set(lockId, row.version);
    const lock = row ? normalizedLock(row.value) : undefined;
    if (!lock) {
      const mine = (await this.held(agentId)).map((l) => l.lock_id);
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no lock "${lockId}" on this workspace (released, or never created)`, {
        hint: mine.length ? `your locks: ${mine.join(', ')}` : `create one with lock_create({"agent_id":"${agentId}","scope":"node","root_nodes":["<node id>"]})`,
        data: { lock_id: lockId, yours: mine },
      });
    }
    if (lock.agent_id !== agentId) {
      throw new M1ndError(ErrorCodes.STATE_NOT_OWNER, `lock "${lockId}" belongs to agent "${lock.agent_id}"; only its owner may diff, rebase, watch or release it`, {
        hint: `coordinate with "${lock.agent_id}", or pin the same region yourself with lock_create (overlaps are reported to both of you)`,
        data: { lock_id: lockId, owner: lock.agent_id },
      });
    }
    return lock;
  }

  /** Refuses a new lock beyond the agent's limit. */
  async checkRoom(agentId: string): Promise<void> {
    const mine = await this.held(agentId);
    if (mine.length < MAX_LOCKS_PER_AGENT) return;
    throw new M1ndError(ErrorCodes.STATE_LIMIT, `agent "${agentId}" holds ${mine.length} locks (limit ${MAX_LOCKS_PER_AGENT})`, {
      hint: `release one first: lock_release({"agent_id":"${agentId}","lock_id":"${mine[0].lock_id}"})`,
      data: { held: mine.map((l) => l.lock_id) },
    });
  }

  /** A new lock id. */
  newId(): string {
    return `lock_${randomBytes(4).toString('hex')}`;
  }

  /** The lock's baseline (its own row; inline in a lock stored by an older version). */
  async baseline(lock: LockRecord): Promise<Snapshot> {
    if (lock.baseline) return lock.baseline;
    const baseline = await readBaseline(this.store, lock.lock_id);
    if (!baseline) {
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `lock "${lock.lock_id}" has no baseline in the store (written by a server that stopped mid-way?)`, {
        hint: `capture it again: lock_rebase({"agent_id":"${lock.agent_id}","lock_id":"${lock.lock_id}"})`,
      });
    }
    return baseline;
  }

  /**
   * Stores a lock: a new one only if its id is free, a read one only if nobody changed it since
   * (STATE_CONFLICT); with `baseline` (or a baseline still inline, moved to its row) in one transaction.
   */
  async save(lock: LockRecord, baseline?: Snapshot): Promise<void> {
    const { baseline: inline, ...record } = lock;
    const base = baseline ?? inline;
    const row = base
      ? await this.store.transaction(async (tx) => {
          const written = await tx.put(NAMESPACE, lock.lock_id, record, { ifVersion: this.versions.get(lock.lock_id) ?? null });
          if (written) await putBaseline(tx, lock.lock_id, base);
          return written;
        })
      : await this.store.put(NAMESPACE, lock.lock_id, record, { ifVersion: this.versions.get(lock.lock_id) ?? null });
    if (!row) throw conflict(`lock "${lock.lock_id}" was changed or released by another call meanwhile; nothing was written`, { lock_id: lock.lock_id });
    delete lock.baseline;
    this.versions.set(lock.lock_id, row.version);
  }

  /**
   * Stores a new exclusive lock and holds each of its nodes, in one transaction: a node another
   * exclusive lock holds (on any server sharing the store) refuses the whole lock, writing nothing.
   */
  async saveExclusive(lock: LockRecord, baseline: Snapshot): Promise<void> {
    // In one order everywhere, so two servers holding overlapping regions never deadlock.
    const nodes = lock.region.nodes.map((n) => n.id).sort();
    const written = await this.store.transaction(async (tx) => {
      for (const id of nodes) {
        if (await tx.put<NodeHold>(HOLDS, id, { lock_id: lock.lock_id, agent_id: lock.agent_id }, { ifVersion: null })) continue;
        const holder = (await tx.get<NodeHold>(HOLDS, id))?.value;
        throw new M1ndError(ErrorCodes.STATE_CONFLICT, `node ${id} is held exclusively by lock "${holder?.lock_id}" of agent "${holder?.agent_id}"; no lock was created`, {
          hint: `coordinate with "${holder?.agent_id}", lock a region without that node, or take a shared (non-exclusive) lock to watch it`,
          data: { node: id, holder },
        });
      }
      const written = await tx.put(NAMESPACE, lock.lock_id, lock, { ifVersion: null });
      if (written) await putBaseline(tx, lock.lock_id, baseline);
      return written;
    });
    if (!written) throw conflict(`lock id "${lock.lock_id}" is taken; nothing was written`, { lock_id: lock.lock_id });
    this.versions.set(lock.lock_id, written.version);
  }

  /**
   * Stores a lock whose region was re-captured (a rebase), with its new baseline. An exclusive lock's
   * holds follow its region in the same transaction: nodes that left it are let go, nodes that joined
   * it are held when free; those another exclusive lock holds are returned (not held by this one).
   */
  async saveRecaptured(lock: LockRecord, baseline: Snapshot, previous: readonly HeldNode[]): Promise<{ node: string; holder: NodeHold | undefined }[]> {
    if (!lock.exclusive) {
      await this.save(lock, baseline);
      return [];
    }
    const { baseline: _inline, ...record } = lock;
    const now = new Set(lock.region.nodes.map((n) => n.id));
    const before = new Set(previous.map((n) => n.id));
    const left = [...before].filter((id) => !now.has(id)).sort();
    const joined = [...now].filter((id) => !before.has(id)).sort();
    const notHeld: { node: string; holder: NodeHold | undefined }[] = [];
    const row = await this.store.transaction(async (tx) => {
      const written = await tx.put(NAMESPACE, lock.lock_id, record, { ifVersion: this.versions.get(lock.lock_id) ?? null });
      if (!written) return null;
      await putBaseline(tx, lock.lock_id, baseline);
      for (const id of left) {
        const hold = await tx.get<NodeHold>(HOLDS, id);
        if (hold?.value.lock_id === lock.lock_id) await tx.delete(HOLDS, id, { ifVersion: hold.version });
      }
      for (const id of joined) {
        if (await tx.put<NodeHold>(HOLDS, id, { lock_id: lock.lock_id, agent_id: lock.agent_id }, { ifVersion: null })) continue;
        const holder = (await tx.get<NodeHold>(HOLDS, id))?.value;
        if (holder?.lock_id !== lock.lock_id) notHeld.push({ node: id, holder });
      }
      return written;
    });
    if (!row) throw conflict(`lock "${lock.lock_id}" was changed or released by another call meanwhile; nothing was written`, { lock_id: lock.lock_id });
    delete lock.baseline;
    this.versions.set(lock.lock_id, row.version);
    return notHeld;
  }

  /** Drops a lock and the nodes it held exclusively, in one transaction. */
  async remove(lock: LockRecord): Promise<void> {
    await this.store.transaction(async (tx) => {
      if (lock.exclusive) {
        for (const { id } of lock.region.nodes) {
          const hold = await tx.get<NodeHold>(HOLDS, id);
          if (hold?.value.lock_id === lock.lock_id) await tx.delete(HOLDS, id, { ifVersion: hold.version });
        }
      }
      await tx.delete(NAMESPACE, lock.lock_id);
      await deleteBaseline(tx, lock.lock_id);
    });
    this.versions.delete(lock.lock_id);
  }

  /** Other agents' locks sharing nodes with a region: who, which lock, how much, where. */
  async overlaps(agentId: string, nodes: readonly string[], except?: string, locks?: readonly LockRecord[]) {
    const mine = new Set(nodes);
    const out = [];
    for (const other of locks ?? (await this.all())) {
      if (other.agent_id === agentId || other.lock_id === except) continue;
      const shared = other.region.nodes.filter((n) => mine.has(n.id));
      if (shared.length === 0) continue;
      out.push({
        lock_id: other.lock_id,
        agent_id: other.agent_id,
        scope: other.spec.scope,
        shared_nodes: shared.length,
        sample: shared.slice(0, 5).map((n) => n.id),
        files: [...new Set(shared.map((n) => n.path))].slice(0, 10),
        since: new Date(other.created_at).toISOString(),
        ...(other.exclusive ? { exclusive: true } : {}),
      });
    }
    return out;
  }
}
