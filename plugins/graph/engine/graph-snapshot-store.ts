/**
 * Reading and writing the store's graph snapshot (graph-snapshot.ts holds the format): a load takes
 * it only while the store is still at the generation and checker-results version it was built
 * under, and ignores it when it is missing, stale, of another format or corrupt (the caller then
 * rebuilds the graph from the stored extractions, as before snapshots, and writes a new one).
 */
import type { GraphBuilder } from './build.ts';
import { CodeGraph } from './graph.ts';
import { decodeSnapshot, type DecodedSnapshot, type SnapshotFile } from './graph-snapshot.ts';
import { snapshotStampFormat } from './linker-revision.ts';
import { encodeSnapshotChunks } from './graph-snapshot-encode.ts';
import { SnapshotView } from './graph-view.ts';
import { boundHeapGrowth } from './heap-growth.ts';
import { runSteps, runStepsSliced, yieldToLoop } from './steps.ts';
import { storedGitFacts, storedResolverConfig } from './stored-graph-inputs.ts';
import type { GraphStore, SnapshotKey } from './store.ts';
import { CHUNK_BYTES } from './store-snapshot.ts';
import { programFingerprint, programFingerprintAsync } from './ts-program/fingerprint.ts';

/** A snapshot read from the store, with the key it holds for. */
export interface SnapshotRead {
  decoded: DecodedSnapshot;
  key: SnapshotKey;
}

/** How the graph got into memory: counters a test or a bench reads. */
export interface LoadStats {
  /** Loads answered from the stored snapshot. */
  snapshotLoads: number;
  /** Loads that re-linked every stored extraction (no usable snapshot, or a builder was needed). */
  extractionLoads: number;
  /** Builder states built because a graph loaded from a snapshot had to change (an ingest, a reload, checker edges). */
  builderBuilds: number;
  /** Snapshots written to the store. */
  snapshotWrites: number;
  /** Why the last load did not use a snapshot, if it did not. */
  lastMiss: SnapshotMiss | null;
}

/** A usable snapshot made into a graph and its read view. */
export interface SnapshotLoad {
  view: SnapshotView;
  read: SnapshotRead;
}

/**
 * The store's snapshot as a graph, in one piece, when it holds (including the program fingerprint
 * its checker edges were validated under); else why not.
 */
export function loadSnapshotNow(store: GraphStore, root: string): SnapshotLoad | SnapshotMiss {
  const read = runSteps(readSnapshotSteps(store));
  if (typeof read === 'string') return read;
  if (read.decoded.fingerprint !== null && read.decoded.fingerprint !== programFingerprint(root)) return 'fingerprint';
  return { view: runSteps(snapshotView(store, read.decoded)), read };
}

/** `loadSnapshotNow` in slices of about `sliceMs` (the fingerprint's walk is asynchronous). */
export async function loadSnapshotSliced(store: GraphStore, root: string, sliceMs: number): Promise<SnapshotLoad | SnapshotMiss> {
  const read = await runStepsSliced(readSnapshotSteps(store), sliceMs);
  if (typeof read === 'string') return read;
  if (read.decoded.fingerprint !== null && read.decoded.fingerprint !== (await programFingerprintAsync(root))) return 'fingerprint';
  const view = await runStepsSliced(snapshotView(store, read.decoded), sliceMs);
  await yieldToLoop();
  return { view, read };
}

/**
 * Debounces snapshot writes: `schedule` (re)starts a quiet-time timer whose end hands the write to
 * `enqueue` (the engine's mutation queue); `flush` hands a pending one over at once (on close).
 */
export class SnapshotScheduler {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly delayMs: number,
    private readonly enqueue: () => void,
  ) {}

  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.delayMs);
    this.timer.unref();
  }

  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.enqueue();
  }
}

/** Why the last read found no usable snapshot (for stats and tests). */
export type SnapshotMiss = 'none' | 'stale' | 'format' | 'corrupt' | 'fingerprint';

/** The store's snapshot when it holds for the store's current state, else the reason it does not. */
export function* readSnapshotSteps(store: GraphStore): Generator<void, SnapshotRead | SnapshotMiss> {
  const key = store.snapshotKey();
  const stamp = store.snapshotStamp();
  if (!stamp) return 'none';
  if (stamp.format !== snapshotStampFormat()) return 'format'; // another layout, or linked by other code
  if (stamp.generation !== key.generation || stamp.preciseVersion !== key.preciseVersion) return 'stale';
  // Chunk by chunk, a yield point between them. Another writer replacing it meanwhile changes the
  // stamp (checked after) or, mid-read, mixes chunks (the checksum catches it).
  const data = new Uint8Array(stamp.bytes);
  let at = 0;
  for (let seq = 0; seq < stamp.chunks; seq++) {
    const chunk = store.snapshotChunk(seq);
    if (!chunk || at + chunk.length > data.length) return 'corrupt';
    data.set(chunk, at);
    at += chunk.length;
    yield;
  }
  if (at !== data.length) return 'corrupt';
  const after = store.snapshotStamp();
  if (!after || after.generation !== key.generation || after.preciseVersion !== key.preciseVersion) return 'stale';
  try {
    return { decoded: yield* decodeSnapshot(data), key };
  } catch {
    // A checksum, a header or a section that does not add up: the snapshot is not used, never trusted.
    return 'corrupt';
  }
}

/** The graph and read view of a decoded snapshot (git facts and resolver config read from the store on first use). */
export function* snapshotView(store: GraphStore, decoded: DecodedSnapshot): Generator<void, SnapshotView> {
  const graph = new CodeGraph();
  yield* graph.restore(decoded.nodes, decoded.edgeSource, decoded.edgeTarget, decoded.edgeRelation, decoded.edgeWeight);
  yield;
  return new SnapshotView(graph, decoded.files, decoded.unresolved, () => storedGitFacts(store), () => storedResolverConfig(store));
}

/**
 * Encodes a built graph (the builder's graph and per-file facts; `keyOf` gives the extraction key
 * each file was built from) and stores it under `key`; false when the store moved on meanwhile.
 */
export function* writeSnapshotSteps(store: GraphStore, key: SnapshotKey, builder: GraphBuilder, keyOf: (path: string) => string | undefined, fingerprint: string | null): Generator<void, boolean> {
  // Encoded a chunk at a time, each stored as it comes: the whole snapshot is never in memory at once.
  // The encode's tables are heap: the bound on the heap's growth (heap-growth.ts) is held so that the
  // limits V8 recomputes after each GC of the write keep the heap near its live size (the write follows
  // a full ingest, whose bound is released by then). It takes effect from the write's first GC on.
  const release = boundHeapGrowth();
  try {
    // The per-file rows gathered a thousand at a time (10,000 files took ~10 ms in one turn).
    const files: SnapshotFile[] = [];
    for (const file of builder.snapshotFiles(keyOf)) if (files.push(file) % 1000 === 0) yield;
    const chunks = encodeSnapshotChunks(builder.graph, { files, unresolved: builder.unresolvedImports(), fingerprint }, CHUNK_BYTES);
    return yield* store.writeSnapshotSteps(snapshotStampFormat(), key, chunks);
  } finally {
    release();
  }
}
