/**
 * The loading half of the loaded graph (loaded-graph.ts adds ingesting and keeping it fresh): its
 * state, the store handle, opening from a snapshot or the stored extractions, the builder state
 * built on demand for a snapshot-loaded graph, checker edges, and the snapshot written after changes.
 * Every mutation runs through one queue, so queries never see a half-swapped builder.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GraphBuilder, type GraphChange } from './build.ts';
import { SnapshotScheduler, loadSnapshotNow, loadSnapshotSliced, writeSnapshotSteps, type LoadStats, type SnapshotLoad } from './graph-snapshot-store.ts';
import type { GraphReadView, SnapshotView } from './graph-view.ts';
import type { FileExtraction } from './extraction.ts';
import { ContentCache } from './content-search.ts';
import type { OpenSummary } from './engine-results.ts';
import { EngineError, EngineErrorCodes } from './errors.ts';
import { LexicalIndex } from './lexical-index.ts';
import type { SourceParser } from './source-parser.ts';
import { PageRankCache } from './stats.ts';
import type { ParseExtensionRegistry } from './parse-extensions.ts';
import { GraphStore, type FileRow } from './store.ts';
import { readStoredFilesSliced, storedGitFacts, storedResolverConfig } from './stored-graph-inputs.ts';
import { BACKGROUND_SLICE_MS, runStepsSliced, yieldToLoop } from './steps.ts';
import { PrecisePass } from './ts-program/precise-pass.ts';
import type { PreciseEdge } from './ts-program/protocol.ts';
import type { WorkspaceWatcher } from './watch.ts';

/** Main-thread time a slice of the stored-graph load may take before it yields to the event loop. */
export const OPEN_SLICE_MS = 20;

/** Quiet time after a change before its snapshot is written (a burst of edits writes one); `close` writes a pending one at once. */
export const SNAPSHOT_DELAY_MS = 1500;

/** What the loaded graph needs to know of the engine's settings. */
export interface LoadedGraphOptions {
  root: string;
  storeDir: string;
  maxFileBytes: number;
  exclude: string[];
  gitMaxCommits: number;
  searchCacheChars: number;
  parser: SourceParser | null;
  busyTimeoutMs?: number;
  readOnly: boolean;
  typeCheck: boolean;
  parseWorkers?: number;
  workerNice?: number;
  /** Load from and write the store's graph snapshot (default true). */
  snapshots?: boolean;
  /** Parse extensions run by ingests (parse-extensions.ts). */
  extensions?: ParseExtensionRegistry;
}

export type { LoadStats };

/** The graph, its indexes and caches, the store they reflect, and how it is loaded (LoadedGraph adds ingesting and freshness). */
export abstract class LoadedGraphBase {
  protected readonly options: LoadedGraphOptions;
  protected storeHandle: GraphStore | null = null;
  protected currentBuilder: GraphBuilder;
  /** The graph's read side when it was loaded from a snapshot and no builder state exists yet. */
  protected lazy: SnapshotView | null = null;
  /** The checker results' version the graph reflects (a snapshot is keyed by it and the generation). */
  protected loadedPreciseVersion = 0;
  protected readonly snapshots = new SnapshotScheduler(SNAPSHOT_DELAY_MS, () => void this.serialized(() => this.saveSnapshot()).catch(() => undefined));
  readonly loadStats: LoadStats = { snapshotLoads: 0, extractionLoads: 0, builderBuilds: 0, snapshotWrites: 0, lastMiss: null };
  /** Signatures and bodies come from the search cache's file contents (filled at ingest). */
  readonly lexical = new LexicalIndex(
    (path) => this.contents.get(path),
    {
      path: () => join(this.options.storeDir, 'seek-index.bin'),
      key: () => (this.storeHandle ? String(this.loadedGeneration) : null),
      writable: () => !this.options.readOnly,
    },
    // Big graphs are built in a worker that reads the files itself.
    { root: () => this.options.root },
  );
  readonly ranks = new PageRankCache();
  readonly contents: ContentCache;
  readonly precise: PrecisePass;
  protected parser: SourceParser | null;
  protected watcher: WorkspaceWatcher | null = null;
  protected loadedGeneration = 0;
  /** path → extraction key of what the in-memory graph was built from. */
  protected loadedRows = new Map<string, string>();
  protected queue: Promise<unknown> = Promise.resolve();
  protected sortedPaths: { version: number; paths: string[] } | null = null;

  constructor(options: LoadedGraphOptions) {
    this.options = options;
    this.contents = new ContentCache(options.root, options.searchCacheChars);
    this.parser = options.parser;
    this.currentBuilder = this.newBuilder();
    this.precise = new PrecisePass({
      root: options.root,
      canCheck: !options.readOnly && options.typeCheck,
      store: () => this.storeHandle,
      builder: () => this.builder,
      applyPrecise: (edges, version) => this.applyPrecise(edges, version),
      applyPreciseSliced: (edges, version) => this.applyPreciseSliced(edges, version),
      ensureBuilder: () => this.mutable().then(() => undefined),
      serialized: (fn) => this.serialized(fn),
    });
  }

  /**
   * The read side of the current graph: the builder, or the snapshot's view while the graph was
   * loaded from a snapshot and nothing has needed the builder's linking state yet.
   */
  get builder(): GraphReadView {
    return this.lazy ?? this.currentBuilder;
  }

  /** The store, or null while none is open. */
  get store(): GraphStore | null {
    return this.storeHandle;
  }

  /** The store generation the graph reflects. */
  get generation(): number {
    return this.loadedGeneration;
  }

  /** path → extraction key of what the in-memory graph was built from. */
  get rows(): ReadonlyMap<string, string> {
    return this.loadedRows;
  }

  /** A builder that drops extractions once linked and re-reads them from the store when needed. */
  protected newBuilder(): GraphBuilder {
    return new GraphBuilder({
      loadExtraction: (path, current) => {
        const key = current ?? this.loadedRows.get(path);
        return key && this.storeHandle ? this.storeHandle.extraction(key, path) : null;
      },
    });
  }

  /**
   * Opens the store and rebuilds the graph from stored extractions (no parsing), in slices of about
   * `sliceMs` of main-thread time (the store read and the build yield a macrotask between slices),
   * into a fresh builder swapped in at the end: queries meanwhile see the previous graph.
   */
  async open(sliceMs = OPEN_SLICE_MS): Promise<OpenSummary> {
    return this.serialized(() => this.openSliced(sliceMs));
  }

  /** The summary of an open that found nothing to load. */
  protected static readonly NOTHING: OpenSummary = { generation: 0, files: 0, nodes: 0, edges: 0, loaded: false, elapsedMs: 0 };

  /** `open` in one piece (a reload inside another serialized operation, a checkpoint load). */
  protected openNow(snapshot = true): OpenSummary {
    const t0 = performance.now();
    if (!this.storeExists()) return LoadedGraphBase.NOTHING;
    const store = this.requireStore();
    if (snapshot && this.useSnapshots) {
      const load = loadSnapshotNow(store, this.options.root);
      if (typeof load !== 'string') return this.finishSnapshotOpen(load, t0);
      this.loadStats.lastMiss = load;
    }
    this.loadStats.extractionLoads++;
    const key = store.snapshotKey();
    const { generation, files } = store.loadAll({ light: true });
    this.loadedRows = new Map(files.map(({ row }) => [row.path, row.extractionKey]));
    const builder = this.newBuilder();
    if (files.length > 0) builder.apply(this.openChange(store, files));
    return this.finishOpen(builder, generation, key.preciseVersion, files.length, t0);
  }

  // A load in slices: the store read and the build yield between slices, and the workspace walk
  // for the checker's fingerprint is asynchronous (computed once, before the synchronous steps).

  protected async openSliced(sliceMs: number, snapshot = true): Promise<OpenSummary> {
    const t0 = performance.now();
    // No store file yet: an empty graph, and the store is created by the first write (not by a load or health).
    if (!this.storeCreated()) return LoadedGraphBase.NOTHING;
    const store = this.requireStore();
    if (snapshot && this.useSnapshots) {
      const load = await loadSnapshotSliced(store, this.options.root, sliceMs);
      if (typeof load !== 'string') return this.finishSnapshotOpen(load, t0);
      this.loadStats.lastMiss = load;
    }
    this.loadStats.extractionLoads++;
    const key = store.snapshotKey();
    const { generation, files } = await readStoredFilesSliced(store, sliceMs);
    this.loadedRows = new Map(files.map(({ row }) => [row.path, row.extractionKey]));
    const builder = this.newBuilder();
    const fingerprint = await this.precise.fingerprintFor(files.map((f) => f.row));
    if (files.length > 0) {
      const change = this.openChange(store, files, fingerprint);
      await yieldToLoop();
      await builder.applyAsync(change, sliceMs);
    }
    return this.finishOpen(builder, generation, key.preciseVersion, files.length, t0, fingerprint);
  }

  protected get useSnapshots(): boolean {
    return this.options.snapshots !== false;
  }

  /** Makes a decoded snapshot the current graph (no builder state: it is built when a change needs it). */
  protected finishSnapshotOpen({ view, read }: SnapshotLoad, t0: number): OpenSummary {
    this.currentBuilder = this.newBuilder();
    this.lazy = view;
    this.clearDerived();
    this.loadedRows = new Map(read.decoded.files.map((f) => [f.path, f.extractionKey]));
    this.loadedGeneration = read.key.generation;
    this.loadedPreciseVersion = read.key.preciseVersion;
    this.loadStats.snapshotLoads++;
    this.loadStats.lastMiss = null;
    this.precise.restore(undefined, read.decoded.fingerprint ?? undefined);
    const files = read.decoded.files.length;
    return { generation: read.key.generation, files, nodes: view.graph.nodeCount, edges: view.graph.edgeCount, loaded: files > 0, elapsedMs: Math.round(performance.now() - t0) };
  }

  /** The build of a load: every stored file (partial extractions), git facts and resolver config. */
  protected openChange(store: GraphStore, files: { row: FileRow; extraction: FileExtraction }[], fingerprint?: string): GraphChange {
    // Checker edges that still hold are linked with the files, not applied (and linked) again after.
    const precise = this.precise.storedEdges(files.map((f) => f.row), fingerprint);
    return {
      upsert: files.map(({ row, extraction }) => ({ path: row.path, language: row.language, extraction, partial: true, precise: precise.get(row.path) ?? null })),
      remove: [],
      git: storedGitFacts(store),
      config: storedResolverConfig(store),
    };
  }

  protected finishOpen(builder: GraphBuilder, generation: number, preciseVersion: number, files: number, t0: number, fingerprint?: string): OpenSummary {
    this.swapBuilder(builder);
    this.loadedGeneration = generation;
    this.loadedPreciseVersion = preciseVersion;
    this.precise.restore(undefined, fingerprint);
    if (files > 0) this.queueSnapshot();
    return {
      generation,
      files,
      nodes: builder.graph.nodeCount,
      edges: builder.graph.edgeCount,
      loaded: files > 0,
      elapsedMs: Math.round(performance.now() - t0),
    };
  }

  /** False only for a read-only engine whose store was never created (nothing may create it). */
  storeExists(): boolean {
    return this.storeHandle !== null || !this.options.readOnly || this.storeCreated();
  }

  /** Whether the store is open or its file exists (a workspace never ingested has none: nothing to load). */
  storeCreated(): boolean {
    return this.storeHandle !== null || existsSync(join(this.options.storeDir, 'm1nd.db'));
  }

  /** The store, opened on first use; throws STORE_CLOSED when a read-only engine has none to open. */
  requireStore(): GraphStore {
    if (!this.storeExists()) {
      throw new EngineError(EngineErrorCodes.STORE_CLOSED, `no graph store at ${this.options.storeDir}, and a read-only server does not create one`, 'ingest the workspace with a writable server (without --read-only) first');
    }
    this.storeHandle ??= new GraphStore(this.options.storeDir, { busyTimeoutMs: this.options.busyTimeoutMs });
    return this.storeHandle;
  }

  protected swapBuilder(builder: GraphBuilder): void {
    this.currentBuilder = builder;
    this.lazy = null;
    this.clearDerived();
  }

  /** Drops what was computed from the previous graph (PageRank, the seek index, sorted paths). */
  protected clearDerived(): void {
    this.ranks.clear();
    this.lexical.reset();
    this.sortedPaths = null;
  }

  /**
   * The builder, with its linking state built first when the graph came from a snapshot: the
   * graph is rebuilt from the store's stored extractions (in slices), as a load without a snapshot does.
   */
  protected async mutable(sliceMs = OPEN_SLICE_MS): Promise<GraphBuilder> {
    if (this.lazy) {
      this.loadStats.builderBuilds++;
      await this.openSliced(sliceMs, false);
    }
    return this.currentBuilder;
  }

  /** An empty builder holding a snapshot-loaded graph's git facts and resolver config (what a full ingest reads of the old graph). */
  protected seededBuilder(view: SnapshotView): GraphBuilder {
    const seed = this.newBuilder();
    seed.apply({ upsert: [], remove: [], git: view.gitFacts, config: view.resolverConfig });
    return seed;
  }

  /** `mutable` in one piece, for the rare synchronous caller (stored checker edges applied at a snapshot load). */
  protected mutableNow(): GraphBuilder {
    if (this.lazy) {
      this.loadStats.builderBuilds++;
      this.openNow(false);
    }
    return this.currentBuilder;
  }

  /** Checker edges for the graph (from the checker pass or the store); `version`: the checker results' version they were stored under. */
  protected applyPrecise(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>, version?: number): void {
    if (edges.size > 0) this.mutableNow().applyPrecise(edges);
    if (version !== undefined) this.loadedPreciseVersion = version;
    if (edges.size > 0 || version !== undefined) this.queueSnapshot();
  }

  /** `applyPrecise` in background slices (a checker pass's results: every checked file relinked), in the engine's queue. */
  protected async applyPreciseSliced(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>, version?: number): Promise<void> {
    if (edges.size > 0) await this.mutableNow().applyPreciseAsync(edges, BACKGROUND_SLICE_MS);
    if (version !== undefined) this.loadedPreciseVersion = version;
    if (edges.size > 0 || version !== undefined) this.queueSnapshot();
  }

  /**
   * Writes a snapshot of the current graph once changes have been quiet for SNAPSHOT_DELAY_MS (in
   * the mutation queue, so the graph does not change under the encoding), keyed by the generation
   * and checker-results version it reflects; the store refuses it when it moved on since. Not for a
   * read-only engine.
   */
  protected queueSnapshot(): void {
    if (!this.options.readOnly && this.useSnapshots) this.snapshots.schedule();
  }

  protected async saveSnapshot(): Promise<void> {
    const store = this.storeHandle;
    if (!store || this.lazy) return;
    const key = { generation: this.loadedGeneration, preciseVersion: this.loadedPreciseVersion };
    const now = store.snapshotKey();
    if (now.generation !== key.generation || now.preciseVersion !== key.preciseVersion) return;
    // One already stored for this state is not written again, unless the last load found it unreadable.
    const stamp = store.snapshotStamp();
    const unreadable = this.loadStats.lastMiss === 'corrupt' || this.loadStats.lastMiss === 'format';
    if (!unreadable && stamp && stamp.generation === key.generation && stamp.preciseVersion === key.preciseVersion) return;
    const fingerprint = (await this.precise.fingerprintFor((await store.fileRowsSliced(BACKGROUND_SLICE_MS)).values())) ?? null;
    const written = await runStepsSliced(writeSnapshotSteps(store, key, this.currentBuilder, (p) => this.loadedRows.get(p), fingerprint), BACKGROUND_SLICE_MS);
    if (written) this.loadStats.snapshotWrites++;
  }

  /** Runs engine mutations one at a time (ingest, reload, checkpoint load). */
  protected serialized<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
