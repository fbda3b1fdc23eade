/**
 * Reading and writing the store's graph snapshot (graph-snapshot.ts holds the format): a load takes
 * it only while the store is still at the generation and checker-results version it was built
 * under, and ignores it when it is missing, stale, of another format or corrupt (the caller then
 * rebuilds the graph from the stored extractions, as before snapshots, and writes a new one).
 */
import type { GraphBuilder } from './build.ts';
import { CodeGraph } from './graph.ts';
import { SNAPSHOT_FORMAT, decodeSnapshot, encodeSnapshot, type DecodedSnapshot } from './graph-snapshot.ts';
import { SnapshotView } from './graph-view.ts';
import { storedGitFacts, storedResolverConfig } from './stored-graph-inputs.ts';
import type { GraphStore, SnapshotKey } from './store.ts';

/** A snapshot read from the store, with the key it holds for. */
export interface SnapshotRead {
  decoded: DecodedSnapshot;
  key: SnapshotKey;
}

/** Why the last read found no usable snapshot (for stats and tests). */
export type SnapshotMiss = 'none' | 'stale' | 'format' | 'corrupt' | 'fingerprint';

/** The store's snapshot when it holds for the store's current state, else the reason it does not. */
export function* readSnapshotSteps(store: GraphStore): Generator<void, SnapshotRead | SnapshotMiss> {
  const key = store.snapshotKey();
  const stamp = store.snapshotStamp();
  if (!stamp) return 'none';
  if (stamp.format !== SNAPSHOT_FORMAT) return 'format';
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
  const data = yield* encodeSnapshot(builder.graph, { files: builder.snapshotFiles(keyOf), unresolved: builder.unresolvedImports(), fingerprint });
  yield;
  return store.writeSnapshot(SNAPSHOT_FORMAT, key, data);
}
