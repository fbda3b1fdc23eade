/**
 * A lock's baseline in the state store (namespace `locks.baselines`): a head row under the lock's id
 * (`{ generation, truncated, parts }`) and the snapshot's entries in parts of PART_ENTRIES rows under
 * `<lock id>#<k>`. A diff reads and parses it a part at a time between event-loop turns: as one row,
 * a 1,700-node region's baseline (~1 MB of JSON) held the main thread 17 ms in one piece on every
 * `lock_diff` and every watch re-check. A baseline stored as one row (before parts) is still read.
 */
import { slicePace } from '../graph/api.ts';
import type { StateOps } from '../state/api.ts';
import type { NodeFact, Snapshot } from './baseline.ts';

/** Baselines of locks: heads keyed by lock id, parts by `<lock id>#<k>`. */
export const BASELINES = 'locks.baselines';
/** Nodes, edges or files per part (a part's JSON is tens of KB: well under a millisecond to parse). */
export const PART_ENTRIES = 300;
/** Main-thread time a read of the parts takes before it gives the event loop back. */
const SLICE_MS = 8;

interface Head {
  generation: number;
  truncated: boolean;
  parts: number;
}

/** One part: entries of one field, and the generation of the baseline it belongs to. */
interface Part {
  generation: number;
  nodes?: NodeFact[];
  edges?: [string, number][];
  files?: [string, string][];
}

const partKey = (lockId: string, k: number): string => `${lockId}#${k}`;
const isHead = (v: Head | Snapshot | undefined): v is Head => v !== undefined && typeof (v as Head).parts === 'number';

function split(s: Snapshot): Part[] {
  const parts: Part[] = [];
  const add = (field: 'nodes' | 'edges' | 'files', entries: unknown[]): void => {
    for (let i = 0; i < entries.length; i += PART_ENTRIES) parts.push({ generation: s.generation, [field]: entries.slice(i, i + PART_ENTRIES) });
  };
  add('nodes', Object.values(s.nodes));
  add('edges', Object.entries(s.edges));
  add('files', Object.entries(s.files));
  return parts;
}

/** Parts a stored head (or a one-row baseline: none) says it has. */
async function storedParts(ops: StateOps, lockId: string): Promise<number> {
  const before = (await ops.get<Head | Snapshot>(BASELINES, lockId))?.value;
  return isHead(before) ? before.parts : 0;
}

/** Writes a lock's baseline (in the caller's transaction), dropping parts a longer earlier one left. */
export async function putBaseline(tx: StateOps, lockId: string, s: Snapshot): Promise<void> {
  const before = await storedParts(tx, lockId);
  const parts = split(s);
  await tx.put<Head>(BASELINES, lockId, { generation: s.generation, truncated: s.truncated, parts: parts.length });
  for (let k = 0; k < parts.length; k++) await tx.put(BASELINES, partKey(lockId, k), parts[k]);
  for (let k = parts.length; k < before; k++) await tx.delete(BASELINES, partKey(lockId, k));
}

/** Deletes a lock's baseline, head and parts (in the caller's transaction). */
export async function deleteBaseline(tx: StateOps, lockId: string): Promise<void> {
  const parts = await storedParts(tx, lockId);
  await tx.delete(BASELINES, lockId);
  for (let k = 0; k < parts; k++) await tx.delete(BASELINES, partKey(lockId, k));
}

/**
 * A lock's baseline, read a part at a time (yielding when a slice is spent); undefined when none is
 * stored, or when a part is missing or of another baseline after a second try (a release or rebase
 * by the owner meanwhile).
 */
export async function readBaseline(store: StateOps, lockId: string): Promise<Snapshot | undefined> {
  const pace = slicePace(SLICE_MS);
  for (let attempt = 0; attempt < 2; attempt++) {
    const head = (await store.get<Head | Snapshot>(BASELINES, lockId))?.value;
    if (head === undefined) return undefined;
    if (!isHead(head)) return head; // one row, as stored before parts
    const s: Snapshot = { generation: head.generation, truncated: head.truncated, nodes: {}, edges: {}, files: {} };
    let whole = true;
    for (let k = 0; k < head.parts && whole; k++) {
      await pace();
      const part = (await store.get<Part>(BASELINES, partKey(lockId, k)))?.value;
      if (!part || part.generation !== head.generation) whole = false;
      else {
        for (const n of part.nodes ?? []) s.nodes[n.id] = n;
        for (const [key, weight] of part.edges ?? []) s.edges[key] = weight;
        for (const [path, hash] of part.files ?? []) s.files[path] = hash;
      }
    }
    if (whole) return s;
  }
  return undefined;
}
