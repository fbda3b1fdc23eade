/**
 * Which other agents' locked regions a write touched: a lock pins nodes with line ranges; a write
 * touches a node when the lines it changed (from the diff of old and new text) overlap the node's
 * range, or when the node is the file itself or vanished with the write.
 */
import { structuredPatch } from 'diff';
import type { LockService } from '../lock/api.ts';

/** A lock of another agent that a write touched. */
export interface LockOverlap {
  lock_id: string;
  owner: string;
  file_path: string;
  nodes: string[];
}

/** Line ranges of the old text that a change replaces (an insertion marks the line it follows). */
export function changedOldRanges(oldText: string, newText: string): [number, number][] {
  const patch = structuredPatch('a', 'b', oldText, newText, '', '', { context: 0 });
  return patch.hunks.map((h) => [Math.max(1, h.oldStart), Math.max(1, h.oldStart + Math.max(h.oldLines, 1) - 1)]);
}

/** Overlaps between the written files' changed lines and the regions other agents locked. */
export function lockOverlaps(locks: LockService, agentId: string, changes: { path: string; ranges: [number, number][] }[]): LockOverlap[] {
  const out: LockOverlap[] = [];
  const byPath = new Map(changes.map((c) => [c.path, c.ranges]));
  for (const lock of locks.regions()) {
    if (lock.agent_id === agentId) continue;
    const hit = new Map<string, string[]>();
    for (const n of lock.nodes) {
      const ranges = byPath.get(n.path);
      if (!ranges || ranges.length === 0) continue;
      const touches = n.lines === null || n.id.startsWith('file:') || ranges.some(([a, b]) => a <= n.lines![1] && b >= n.lines![0]);
      if (!touches) continue;
      let list = hit.get(n.path);
      if (!list) hit.set(n.path, (list = []));
      list.push(n.id);
    }
    for (const [path, nodes] of hit) out.push({ lock_id: lock.lock_id, owner: lock.agent_id, file_path: path, nodes: nodes.sort() });
  }
  return out;
}
