/**
 * Graph snapshots for `differential`: the live graph, a checkpoint stored by `persist` (files and
 * symbols; checkpoints keep no edges), or the graph of a git ref — the ref's files exported
 * (tree-export.ts) into a temporary directory and ingested there by a second engine (with the
 * type-checker pass when the caller asks: to compare with a live graph that ran it). Ref snapshots
 * are cached per commit and setting (the two newest), their directories removed on eviction and at
 * exit.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { CodeGraphEngine, RELATIONS, slicePace, symbolNodeId, type CodeGraph, type NodeKind } from '../graph/api.ts';
import { repoPrefix, resolveRef } from './git.ts';
import { removeTree } from './remove-tree.ts';
import { exportTree } from './tree-export.ts';

/** A node as snapshots compare them. */
export interface SnapNode {
  kind: string;
  path: string;
  start: number;
  end: number;
}

/** One side of a differential. */
export interface Snapshot {
  label: string;
  kind: 'current' | 'checkpoint' | 'git';
  commit?: string;
  /** Node id → node (directories left out). */
  nodes: Map<string, SnapNode>;
  /** "source\u0001relation\u0001target" → weight; null when the snapshot keeps no edges (checkpoints). */
  edges: Map<string, number> | null;
  /** File path → content hash. */
  files: Map<string, string>;
  /** A file's text, when the snapshot can give it. */
  text(path: string): Promise<string | null>;
  /** Files of a git ref whose objects git could not read (absent from a partial clone, damaged): left out. */
  unreadable?: string[];
}

const SEP = '\u0001';
const MAX_EXPORT_BYTES = 512 * 1024 * 1024;
/** A ref snapshot's engine reads files up to this size (the engine's default), and only those are exported. */
const SNAPSHOT_MAX_FILE_BYTES = 1024 * 1024;

/** Main-thread time a snapshot's read or comparison takes before it lets other calls run. */
export const SNAPSHOT_SLICE_MS = 8;

/** The nodes and edges of a loaded graph, read in SNAPSHOT_SLICE_MS slices. */
async function readGraph(g: CodeGraph): Promise<{ nodes: Map<string, SnapNode>; edges: Map<string, number> }> {
  const pace = slicePace(SNAPSHOT_SLICE_MS);
  const nodes = new Map<string, SnapNode>();
  let k = 0;
  for (const [, n] of g.nodes()) {
    if ((++k & 255) === 0) await pace();
    if (n.kind === 'module') continue;
    nodes.set(n.id, { kind: n.kind, path: n.path, start: n.startLine, end: n.endLine });
  }
  const edges = new Map<string, number>();
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & 255) === 255) await pace();
    if (!g.edgeAlive[e]) continue;
    const s = g.node(g.edgeSource[e]);
    const t = g.node(g.edgeTarget[e]);
    if (!s || !t || s.kind === 'module' || t.kind === 'module') continue;
    const key = `${s.id}${SEP}${RELATIONS[g.edgeRelation[e]]}${SEP}${t.id}`;
    edges.set(key, Math.max(edges.get(key) ?? 0, g.edgeWeight[e]));
  }
  return { nodes, edges };
}

/** Splits an edge key into its parts. */
export function edgeParts(key: string): [source: string, relation: string, target: string] {
  return key.split(SEP) as [string, string, string];
}

/** The live graph. */
export async function currentSnapshot(engine: CodeGraphEngine): Promise<Snapshot> {
  const { nodes, edges } = await readGraph(engine.graph);
  const files = new Map([...engine.storedFiles()].map(([p, r]) => [p, r.hash]));
  return { label: 'current', kind: 'current', nodes, edges, files, text: (p) => readText(engine.resolvePath(p).absolute) };
}

/** A checkpoint stored by `persist` (files and symbols from its extractions; no edges), or null when there is none. */
export async function checkpointSnapshot(engine: CodeGraphEngine, name: string): Promise<Snapshot | null> {
  const cp = engine.checkpointFiles(name);
  if (!cp) return null;
  const nodes = new Map<string, SnapNode>();
  const files = new Map<string, string>();
  // A file's stored extraction is parsed from its JSON (~0.1–2 ms each): paced per file, as readGraph
  // (a yield every 500 files held 90–400 ms on the Python standard library).
  const pace = slicePace(SNAPSHOT_SLICE_MS);
  for (const row of cp.files.values()) {
    await pace();
    files.set(row.path, row.hash);
    nodes.set(`file:${row.path}`, { kind: 'file', path: row.path, start: 1, end: Math.max(1, row.loc) });
    const ex = engine.storedExtraction(row.extractionKey, row.path);
    for (const s of ex?.symbols ?? []) nodes.set(symbolNodeId(s.kind as NodeKind, row.path, s.qualifiedName), { kind: s.kind, path: row.path, start: s.startLine, end: s.endLine });
  }
  return { label: `checkpoint:${name}`, kind: 'checkpoint', nodes, edges: null, files, text: async () => null };
}

/** Snapshot directories being removed (off the main thread); the exit hook removes what is left. */
const removing = new Set<string>();

/**
 * Removes a snapshot directory in the background, a few files at a time: an exported tree and its
 * store are thousands of files, whose synchronous removal held the loop 70–160 ms (m1nd's own tree).
 */
function removeLater(dir: string): void {
  hookCleanup();
  removing.add(dir);
  void removeTree(dir).finally(() => removing.delete(dir));
}

/** At exit, the cached snapshots' directories and those still being removed go (synchronously). */
function hookCleanup(): void {
  if (cleanupHooked) return;
  cleanupHooked = true;
  process.once('exit', () => {
    for (const d of [...[...refCache.values()].map((c) => c.dir), ...removing]) rmSync(d, { recursive: true, force: true });
  });
}

interface CachedRef {
  dir: string;
  snapshot: Snapshot;
}
const refCache = new Map<string, CachedRef>();
const MAX_CACHED = 2;
let cleanupHooked = false;

/** The graph of the workspace at a git ref (built once per commit, then cached). */
export async function gitSnapshot(root: string, ref: string, options: { typeCheck: boolean; signal?: AbortSignal }): Promise<Snapshot> {
  const commit = await resolveRef(root, ref);
  const key = `${root}\0${commit}\0${options.typeCheck}`;
  const hit = refCache.get(key);
  if (hit) {
    refCache.delete(key);
    refCache.set(key, hit);
    return { ...hit.snapshot, label: `git:${ref}` };
  }
  const dir = mkdtempSync(join(tmpdir(), 'm1nd-snapshot-'));
  const tree = join(dir, 'tree');
  mkdirSync(tree);
  let engine: CodeGraphEngine | null = null;
  let failed = false;
  try {
    const prefix = (await repoPrefix(root)).replace(/\/$/, '');
    const unreadable = await exportTree(root, prefix ? `${commit}:${prefix}` : commit, tree, { maxFileBytes: SNAPSHOT_MAX_FILE_BYTES, maxTotalBytes: MAX_EXPORT_BYTES }, options.signal);
    // Parsed by one worker at the server's priority: on the main thread, a language's first file
    // compiles its tree-sitter query in one synchronous call (~100 ms for Python or TypeScript), which
    // held every other session's call (the server's own ingest parses in its workers, so the main
    // thread has no extractor yet). Not niced: the call waits on it (a niced pool took 31 s for a
    // 320-file ref at load 25, against 7 s). kysely HEAD~5 / HEAD~10 with the checker pass: 12.5 /
    // 7.6 and 12.0 / 9.7 s, against 8.2 / 7.8 and 12.6 / 8.1 s on the main thread (the same, noise).
    // No graph snapshot: the store is thrown away once the graph is read.
    engine = new CodeGraphEngine({ root: tree, storeDir: join(dir, 'store'), gitMaxCommits: 0, typeCheck: options.typeCheck, parseWorkers: 1, workerNice: 0, maxFileBytes: SNAPSHOT_MAX_FILE_BYTES, snapshots: false });
    await engine.ingest({ signal: options.signal });
    if (options.typeCheck) await engine.preciseIdle();
    const { nodes, edges } = await readGraph(engine.graph);
    const files = new Map([...engine.storedFiles()].map(([p, r]) => [p, r.hash]));
    const snapshot: Snapshot = { label: `git:${ref}`, kind: 'git', commit, nodes, edges, files, text: (p) => readText(join(tree, p)), ...(unreadable.length ? { unreadable } : {}) };
    refCache.set(key, { dir, snapshot });
    while (refCache.size > MAX_CACHED) {
      const [oldKey, old] = refCache.entries().next().value!;
      refCache.delete(oldKey);
      removeLater(old.dir);
    }
    hookCleanup();
    return snapshot;
  } catch (error) {
    failed = true;
    if (options.signal?.aborted) {
      throw new M1ndError(ErrorCodes.CALL_TIMEOUT, `building the graph at ${ref} stopped: the time budget ran out`, { hint: 'raise budget_ms, or compare stored checkpoints (persist {"action":"checkpoint"}) instead of refs' });
    }
    throw error;
  } finally {
    await engine?.close();
    if (failed) removeLater(dir); // once its store is closed
  }
}

async function readText(absolute: string): Promise<string | null> {
  try {
    return await readFile(absolute, 'utf8');
  } catch {
    return null;
  }
}
