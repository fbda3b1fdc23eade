/**
 * The write path every write verb shares: plan (path guard, current content, compare-and-swap on
 * `expected_hash`), then — after the files are written — re-ingest them in the same call and report
 * the graph delta, the dependents of what changed, the tests to run and the other agents' locks
 * the write touched. Proofs follow the agent's own writes.
 */
import { readFileSync, statSync } from 'node:fs';
import { ErrorCodes, M1ndError, type CallContext } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { engineCall, slicePace } from '../graph/api.ts';
import type { LockService } from '../lock/api.ts';
import { hashBytes } from './file-bytes.ts';
import { graphDelta, snapshotFiles, snapshotFilesPaced, type FilesSnapshot, type GraphDelta } from './graph-delta.ts';
import { changedOldRanges, lockOverlaps, type LockOverlap } from './lock-overlap.ts';
import { advanceProof, PROVER } from './proofs.ts';

/** Budget of one turn of a write's per-file steps (plan, graph snapshots, diffs) before other calls get the loop. */
const WRITE_SLICE_MS = 8;
/**
 * How long a write waits for the type checker to re-link the TS/JS files it wrote (a warm checker:
 * ~0.2 s on a 500-file project); past it, the report counts the edges its pass will bring back as pending.
 */
const TYPE_CHECK_WAIT_MS = 1000;
/** Files the type checker links (their calls are name-resolved until its pass over them ends). */
const CHECKED_FILE = /\.[cm]?[jt]sx?$/;

/** One file an agent asks to write. */
export interface WriteRequest {
  file_path: string;
  new_content: string;
  expected_hash?: string;
}

/** A write checked and ready: where, what is there now, what goes there. */
export interface PlannedWrite {
  path: string;
  absolute: string;
  content: string;
  oldText: string | null;
  oldHash: string | null;
  newHash: string;
}

/** What a verb reports after writing. */
export interface WriteReport {
  written: { file_path: string; bytes: number; created: boolean; old_hash: string | null; new_hash: string }[];
  graph: ({ generation: number; reingest_ms: number; type_check?: { settled: false; note: string } } & GraphDelta) | { reingested: false };
  lock_overlaps: LockOverlap[];
}

/** The call that refreshes an agent's view of a file (named in stale-base refusals). */
export function refreshCall(agentId: string, path: string): string {
  return `${PROVER}({"agent_id":"${agentId}","file_path":"${path}"})`;
}

/** Resolves and checks every request before anything is written; throws on the first bad one. */
export function planWrites(graph: GraphService, agentId: string, requests: readonly WriteRequest[]): PlannedWrite[] {
  const seen = new Set<string>();
  return requests.map((r) => planWrite(graph, agentId, r, seen));
}

/**
 * `planWrites` for a batch, in slices of WRITE_SLICE_MS (each file is stat'ed, read and hashed: 200
 * files held the loop ~40 ms in one piece). Other calls run between the slices, so the batch's write
 * must check its targets again where it writes (writeBatchAtomic's `stillAsPlanned`).
 */
export async function planWritesPaced(graph: GraphService, agentId: string, requests: readonly WriteRequest[]): Promise<PlannedWrite[]> {
  const pace = slicePace(WRITE_SLICE_MS);
  const seen = new Set<string>();
  const planned: PlannedWrite[] = [];
  for (const r of requests) {
    await pace();
    planned.push(planWrite(graph, agentId, r, seen));
  }
  return planned;
}

/** One request resolved and checked (`seen`: the paths earlier requests of the write named). */
function planWrite(graph: GraphService, agentId: string, r: WriteRequest, seen: Set<string>): PlannedWrite {
  const p = engineCall(() => graph.engine.resolvePath(r.file_path));
  if (!p.relative) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, 'the workspace root is a directory, not a file to write', { hint: 'pass a file path such as "src/index.ts"' });
  if (seen.has(p.relative)) {
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `"${p.relative}" appears twice in one write`, { hint: 'merge the edits of one file into one new_content' });
  }
  seen.add(p.relative);
  let st;
  try {
    st = statSync(p.absolute, { throwIfNoEntry: false });
  } catch (error) {
    throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `"${p.relative}" cannot be written: ${(error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'a parent of it is a file' : (error as Error).message}`, { hint: 'pick a path whose parent folders are folders' });
  }
  if (st && !st.isFile()) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `"${p.relative}" is a directory, not a file`, { hint: 'pass a file path' });
  const bytes = st ? readFileSync(p.absolute) : null;
  const oldHash = bytes ? hashBytes(bytes) : null;
  if (r.expected_hash !== undefined && r.expected_hash !== (oldHash ?? 'absent')) {
    throw new M1ndError(ErrorCodes.EDIT_STALE_BASE, `"${p.relative}" is not the version you read: its content hash is ${oldHash ?? 'absent (no file)'}, you expected ${r.expected_hash}`, {
      hint: `re-read it with ${refreshCall(agentId, p.relative)}, redo the edit on its content, and pass its content_hash as expected_hash`,
      data: { file_path: p.relative, expected_hash: r.expected_hash, current_hash: oldHash },
    });
  }
  return { path: p.relative, absolute: p.absolute, content: r.new_content, oldText: bytes ? bytes.toString('utf8') : null, oldHash, newHash: hashBytes(Buffer.from(r.new_content, 'utf8')) };
}

/**
 * Throws EDIT_STALE_BASE when a planned file is no longer the content its plan read: another call
 * wrote it while a batch's temp files were being written (`writeBatchAtomic` checks in the turn it
 * renames in).
 */
export function assertStillAsPlanned(planned: readonly PlannedWrite[], agentId: string): void {
  for (const p of planned) {
    const current = currentHash(p);
    if (current === p.oldHash) continue;
    throw new M1ndError(ErrorCodes.EDIT_STALE_BASE, `"${p.path}" changed while the batch was being written (its content hash is now ${current ?? 'absent (no file)'}, the batch was planned on ${p.oldHash ?? 'no file'}); nothing was written`, {
      hint: `re-read it with ${refreshCall(agentId, p.path)}, redo the edit on its content, and send the batch again`,
      data: { file_path: p.path, expected_hash: p.oldHash, current_hash: current },
    });
  }
}

/** The content hash of a planned file on disk now (null: no file). */
export function currentHash(p: PlannedWrite): string | null {
  let bytes: Buffer | null = null;
  try {
    bytes = readFileSync(p.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return bytes ? hashBytes(bytes) : null;
}

/** The graph's view of the planned files before they are written. */
export function snapshotBefore(graph: GraphService, planned: readonly PlannedWrite[]): FilesSnapshot {
  return snapshotFiles(graph, planned.map((p) => p.path), new Map(planned.map((p) => [p.path, p.oldText])));
}

/** `snapshotBefore` for a batch, in slices of WRITE_SLICE_MS (a file at a time). */
export function snapshotBeforePaced(graph: GraphService, planned: readonly PlannedWrite[]): Promise<FilesSnapshot> {
  return snapshotFilesPaced(graph, planned.map((p) => p.path), new Map(planned.map((p) => [p.path, p.oldText])), slicePace(WRITE_SLICE_MS));
}

/**
 * After the files are on disk: re-ingest (when asked), delta, locks touched, proofs advanced; the
 * per-file work in slices of WRITE_SLICE_MS (200 files' snapshot and diffs held the loop ~70 ms).
 */
export async function afterWrite(
  graph: GraphService,
  locks: LockService,
  call: CallContext,
  planned: readonly PlannedWrite[],
  before: FilesSnapshot,
  reingest: boolean,
): Promise<WriteReport> {
  const pace = slicePace(WRITE_SLICE_MS);
  let graphReport: WriteReport['graph'] = { reingested: false };
  if (reingest) {
    const t = performance.now();
    const summary = await graph.reingestPaths(planned.map((p) => p.path));
    // The checker's edges of the written TS/JS files are dropped by the re-ingest and come back with
    // its pass: a delta taken before that reads every call only the checker links as removed.
    const settled = await typeCheckSettled(graph, planned.map((p) => p.path));
    const after = await snapshotFilesPaced(graph, planned.map((p) => p.path), new Map(planned.map((p) => [p.path, p.content])), pace);
    await pace();
    graphReport = {
      generation: summary.generation,
      reingest_ms: Math.round(performance.now() - t),
      ...graphDelta(before, after, !settled),
      ...(settled ? {} : { type_check: { settled: false as const, note: `the type checker had not re-linked the written files within ${TYPE_CHECK_WAIT_MS / 1000} s: edges of unchanged symbols it links come back with its pass (edges.pending_relink); those of changed symbols may read as removed until then` } }),
    };
  }
  for (const p of planned) advanceProof(call, p.path, p.newHash);
  // A diff per file: a batch's files are diffed a slice at a time.
  const changes: { path: string; ranges: [number, number][] }[] = [];
  for (const p of planned) {
    await pace();
    changes.push({ path: p.path, ranges: p.oldText === null ? [[1, 1]] : changedOldRanges(p.oldText, p.content) });
  }
  return {
    written: planned.map((p) => ({ file_path: p.path, bytes: Buffer.byteLength(p.content), created: p.oldText === null, old_hash: p.oldHash, new_hash: p.newHash })),
    graph: graphReport,
    lock_overlaps: lockOverlaps(locks, call.agentId, changes),
  };
}

/** Waits (bounded) for the type checker's pass when a written file is one it links; false if it is still running. */
async function typeCheckSettled(graph: GraphService, paths: readonly string[]): Promise<boolean> {
  if (!paths.some((p) => CHECKED_FILE.test(p)) || !graph.engine.preciseStatus().running) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), TYPE_CHECK_WAIT_MS)));
  try {
    return await Promise.race([graph.engine.preciseIdle().then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
