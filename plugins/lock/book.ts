/**
 * Where locks live: the workspace store (`engine.memory`, namespace `locks`, one row per lock keyed
 * by its id). Locks are shared memory — every agent and every server process on the workspace sees
 * every lock — but only the owning agent may diff, rebase, watch or release one.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { Snapshot } from './baseline.ts';
import type { RegionSpec } from './region.ts';

export const NAMESPACE = 'locks';
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

/** A lock as stored. */
export interface LockRecord {
  lock_id: string;
  agent_id: string;
  spec: RegionSpec;
  strategy: Strategy;
  baseline: Snapshot;
  /** Graph generation the watch last re-checked. */
  checked_generation: number;
  events: WatchEvent[];
  created_at: number;
  rebased_at?: number;
}

/** Every lock on the workspace. */
export class LockBook {
  constructor(private readonly graph: GraphService) {}

  /** All locks, oldest first. */
  all(): LockRecord[] {
    return this.graph.engine.memory
      .list<LockRecord>(NAMESPACE, 'lock_', 100_000)
      .map((r) => r.value)
      .sort((a, b) => a.created_at - b.created_at || a.lock_id.localeCompare(b.lock_id));
  }

  /** The locks an agent holds. */
  held(agentId: string): LockRecord[] {
    return this.all().filter((l) => l.agent_id === agentId);
  }

  /** A lock the calling agent owns; STATE_NOT_FOUND / STATE_NOT_OWNER otherwise. */
  owned(agentId: string, lockId: string): LockRecord {
    const lock = this.graph.engine.memory.get<LockRecord>(NAMESPACE, lockId)?.value;
    if (!lock) {
      const mine = this.held(agentId).map((l) => l.lock_id);
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
  checkRoom(agentId: string): void {
    const mine = this.held(agentId);
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

  save(lock: LockRecord): void {
    this.graph.engine.memory.set(NAMESPACE, lock.lock_id, lock);
  }

  remove(lockId: string): void {
    this.graph.engine.memory.delete(NAMESPACE, lockId);
  }

  /** Other agents' locks sharing nodes with a region: who, which lock, how much, where. */
  overlaps(agentId: string, nodes: readonly string[], except?: string) {
    const mine = new Set(nodes);
    const out = [];
    for (const other of this.all()) {
      if (other.agent_id === agentId || other.lock_id === except) continue;
      const shared = Object.keys(other.baseline.nodes).filter((id) => mine.has(id));
      if (shared.length === 0) continue;
      out.push({
        lock_id: other.lock_id,
        agent_id: other.agent_id,
        scope: other.spec.scope,
        shared_nodes: shared.length,
        sample: shared.slice(0, 5),
        files: [...new Set(shared.map((id) => other.baseline.nodes[id].path))].slice(0, 10),
        since: new Date(other.created_at).toISOString(),
      });
    }
    return out;
  }
}
