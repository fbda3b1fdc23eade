/**
 * The `locks` service: a read-only view of every lock's region for other plugins (the edit family
 * reports writes that touch another agent's locked region). Plugins reach it through
 * `ctx.service('locks')`, never by importing the lock book.
 */
import type { LockRecord } from './book.ts';

/** One locked region as other plugins see it: its owner and the nodes (path, line range) it pins. */
export interface LockRegionView {
  lock_id: string;
  agent_id: string;
  /** How the region was drawn (`node`, `subgraph`, `query_neighborhood`, `path`). */
  scope: string;
  /** Epoch ms the lock was taken. */
  created_at: number;
  /** Holds its nodes against other exclusive locks. */
  exclusive: boolean;
  nodes: { id: string; path: string; lines: [number, number] | null }[];
}

/** What the lock plugin provides as `locks`. */
export interface LockService {
  /** Every lock's region on the workspace (empty when there is no store yet). */
  regions(): LockRegionView[];
}

/** The service over the locks `current()` answers synchronously (the embedded store read now, or a team store's latest copy kept fresh by its change feed). */
export function createLockService(current: () => readonly LockRecord[]): LockService {
  return {
    regions() {
      let all;
      try {
        all = current();
      } catch {
        return []; // no store (read-only server on a never-ingested workspace): no locks
      }
      return all.map((l) => ({
        lock_id: l.lock_id,
        agent_id: l.agent_id,
        scope: l.spec.scope,
        created_at: l.created_at,
        exclusive: l.exclusive === true,
        nodes: l.region.nodes,
      }));
    },
  };
}
