/**
 * The in-memory graph of one workspace and the store it is rebuilt from: opening (loaded-graph-base.ts),
 * ingesting, and keeping the graph fresh (generations other processes committed, files the watcher
 * saw change). Every mutation runs through one queue, so queries never see a half-swapped builder.
 */
import type { FreshnessReport, OpenSummary, Stamped } from './engine-results.ts';
import { walkWorkspaceAsync, type WalkEntry } from './walk.ts';
import { boundHeapGrowth } from './heap-growth.ts';
import { runIngest, type IngestOptions, type IngestSummary } from './ingest.ts';
import { aborted } from './ingest-parse.ts';
import { loadDefaultParser, type SourceParser } from './source-parser.ts';
import { storedFileChanges, storedGitFacts, storedResolverConfig } from './stored-graph-inputs.ts';
import { WorkspaceWatcher, type WatchOptions } from './watch.ts';
import { WatchReconciler } from './watch-reconcile.ts';
import { storeDrift, type StoreDrift } from './store-drift.ts';
import type { FileRow } from './store-files.ts';
import { extractText } from './extract-text.ts';
import type { FileExtraction } from './extraction.ts';
import { defaultParseWorkers } from './parse-pool/pool.ts';
import { LoadedGraphBase, OPEN_SLICE_MS } from './loaded-graph-base.ts';
import { BACKGROUND_SLICE_MS, SliceClock } from './steps.ts';

export { OPEN_SLICE_MS, SNAPSHOT_DELAY_MS, type LoadedGraphOptions, type LoadStats } from './loaded-graph-base.ts';

/** The graph, its indexes and caches, and the store they reflect. */
export class LoadedGraph extends LoadedGraphBase {
  /** Ingests running that only read the loaded graph (a full one until its swap, an incremental one until its patch; 0 or 1). */
  private rebuilding = 0;

  private async getParser(): Promise<SourceParser> {
    this.parser ??= await loadDefaultParser();
    return this.parser;
  }

  /** The files an ingest would select now, by the walk's rules, listed in slices of `sliceMs` (nothing is read or parsed). */
  async walkFiles(sliceMs: number): Promise<WalkEntry[]> {
    const parser = await this.getParser();
    const options = { root: this.options.root, maxFileBytes: this.options.maxFileBytes, exclude: this.options.exclude, detectLanguage: parser.detectLanguage, reportPruned: false };
    return (await walkWorkspaceAsync(options, sliceMs)).files;
  }

  /** How the files on disk (those `within` accepts, else all) differ from the store's rows (store-drift.ts), walked and compared in slices of `sliceMs`. */
  async storeDrift(sliceMs: number, since: number, within?: (path: string) => boolean): Promise<StoreDrift> {
    const walked = await this.walkFiles(sliceMs);
    const rows = this.store ? await this.store.fileRowsSliced(sliceMs) : new Map<string, FileRow>();
    return storeDrift(walked, rows, since, sliceMs, within);
  }

  /** Ingests the workspace (full by default; `incremental` re-parses changed files only). */
  /** The extraction of a text that is not the file on disk (an edit's preview), parsed where an ingest would; null for a file of no known language. */
  async extractText(path: string, text: string): Promise<FileExtraction | null> {
    const parser = await this.getParser();
    const language = parser.detectLanguage(path);
    if (!language) return null;
    return extractText(parser, path, text, language, { root: this.options.root, workers: this.options.parseWorkers ?? defaultParseWorkers(), nice: this.options.workerNice });
  }

  async ingest(options: IngestOptions = {}): Promise<IngestSummary> {
    // Cancelled while queued behind another ingest: never started (its walk and parse would be wasted).
    return this.serialized(() => (aborted(options.signal), this.ingestNow(options, true)));
  }

  /**
   * `staleReads`: an incremental ingest asked for (the `ingest` verb, the daemon) lets queries answer
   * from the loaded graph, stamped stale, until it starts patching it (its walk, reads, parse and
   * commit only read the graph); a re-ingest `ensureFresh` runs for a query is waited for.
   */
  private async ingestNow(options: IngestOptions, staleReads = false): Promise<IngestSummary> {
    const store = this.requireStore();
    this.precise.warm();
    // Diff against what another process may have committed since we loaded. A patch needs the
    // builder's linking state, so a graph loaded from a snapshot is rebuilt from extractions first;
    // a full ingest builds a new graph and reads only the git facts and resolver config of the old one.
    const full = options.paths === undefined && options.incremental !== true;
    let builder = this.currentBuilder;
    if (full && this.lazy) builder = this.seededBuilder(this.lazy);
    else if (this.lazy) builder = await this.mutable(options.sliceMs);
    else if (this.builder.graph.nodeCount === 0 && store.generation() > 0) {
      await this.openSliced(options.sliceMs ?? OPEN_SLICE_MS, false);
      builder = this.currentBuilder;
    }
    else if (store.generation() !== this.loadedGeneration) this.reloadFromStore();
    // From here until the swap below, a full run only reads the loaded graph: queries answer from it
    // (stamped stale) instead of waiting; the parser's first load is part of that wait too.
    // An incremental run asked for reads the loaded graph the same way until it patches it in place.
    let reading = full || (staleReads && options.paths === undefined);
    if (reading) this.rebuilding++;
    const patching = () => {
      if (reading) this.rebuilding--;
      reading = false;
    };
    try {
      return await this.ingestFrom(store, builder, full, options, patching);
    } finally {
      patching();
    }
  }

  private async ingestFrom(store: ReturnType<LoadedGraph['requireStore']>, builder: LoadedGraph['currentBuilder'], full: boolean, options: IngestOptions, beforePatch?: () => void): Promise<IngestSummary> {
    const parser = await this.getParser();
    // Texts go to the bounded search cache as they are read; a full run replaces every one.
    if (full) this.contents.clear();
    // A full run builds a whole new graph beside the loaded one: V8 is told to mark before its garbage doubles the heap.
    const releaseHeap = full ? boundHeapGrowth() : null;
    const outcome = await runIngest(
      {
        root: this.options.root,
        store,
        builder,
        newBuilder: () => this.newBuilder(),
        parser,
        maxFileBytes: this.options.maxFileBytes,
        exclude: this.options.exclude,
        gitMaxCommits: this.options.gitMaxCommits,
        parseWorkers: this.options.parseWorkers,
        workerNice: this.options.workerNice,
        keepText: (path, text) => this.contents.put(path, text),
        keepTextChars: this.contents.maxBytes,
        extensions: this.options.extensions,
        beforePatch,
      },
      options,
    ).finally(() => releaseHeap?.());
    if (outcome.rebuilt) {
      this.swapBuilder(outcome.builder);
      this.loadedRows = new Map(outcome.rows.map((r) => [r.path, r.extractionKey]));
    } else {
      this.sortedPaths = null;
    }
    for (const path of outcome.removed) {
      this.loadedRows.delete(path);
      this.contents.drop(path);
    }
    for (const row of outcome.rows) this.loadedRows.set(row.path, row.extractionKey);
    const raced = outcome.previousGeneration !== this.loadedGeneration;
    this.loadedGeneration = outcome.summary.generation;
    // Another process committed between our read and our write: fold its files in too.
    if (raced) this.reloadFromStore();
    // A background re-ingest's patch ends its slice: the checker's bookkeeping (reading the touched
    // files' rows, restoring their stored results) waits for the next turn when the turn's shared
    // background budget is spent (a foreground ingest's clock starts here: it never yields).
    const clock = new SliceClock(options.sliceMs ?? OPEN_SLICE_MS);
    if (clock.spent()) await clock.yield();
    this.precise.afterIngest([...outcome.rows.map((r) => r.path), ...outcome.removed], outcome.rebuilt);
    this.queueSnapshot();
    options.onFiles?.({ changed: outcome.changed, removed: outcome.removed });
    return outcome.summary;
  }

  /** Patches the graph to the store's current files (other processes' commits), by extraction key. */
  private reloadFromStore(): boolean {
    const store = this.requireStore();
    const generation = store.generation();
    const { stored, upsert, remove } = storedFileChanges(store, this.loadedRows);
    // The other writer's checker results for these files, if it stored them already, are linked with them.
    const precise = this.precise.storedEdges(upsert.map((f) => stored.get(f.path)!));
    for (const f of upsert) f.precise = precise.get(f.path) ?? null;
    // Git facts are re-derived from the stored commits: the other writer may have rescanned history.
    this.currentBuilder.apply({ upsert, remove, git: storedGitFacts(store), config: storedResolverConfig(store) });
    this.sortedPaths = null;
    for (const f of upsert) this.contents.drop(f.path);
    for (const p of remove) this.contents.drop(p);
    this.loadedRows = new Map([...stored].map(([p, r]) => [p, r.extractionKey]));
    this.loadedGeneration = generation;
    // Files without a result that holds are scheduled for a check.
    this.precise.restore(upsert.map((f) => f.path));
    return upsert.length > 0 || remove.length > 0;
  }

  /** Brings the graph up to date: other processes' commits, then files the watcher saw change. */
  async ensureFresh(): Promise<FreshnessReport> {
    // A full ingest builds its graph beside the loaded one and swaps it in at its end (an incremental
    // one asked for patches it in place only after its walk, reads, parse and commit): a query (another
    // session's) answers from the loaded graph until then, stamped stale, rather than queueing behind
    // the ingest. Edits the watcher saw stay pending for the next query after it.
    if (this.rebuilding > 0 && this.builder.graph.nodeCount > 0) return { generation: this.loadedGeneration, reloaded: false, reingested: [] };
    return this.serialized(async () => {
      const store = this.requireStore();
      let reloaded = false;
      if (store.generation() !== this.loadedGeneration) {
        // A graph loaded from a snapshot loads the newer one (or re-links) rather than building its builder to patch it.
        if (this.builder.graph.nodeCount === 0 || this.lazy) await this.openSliced(OPEN_SLICE_MS);
        else this.reloadFromStore();
        reloaded = true;
      }
      const reingested: string[] = [];
      if (this.watcher && this.watcher.pending > 0) {
        await this.watcher.settled();
        const dirty = this.watcher.drain();
        try {
          // A directory came or went: only a walk knows its files. The watcher's edits are re-ingested
          // in background slices: other requests wait no more than a few ms behind them.
          if (dirty.dirs.length > 0) await this.ingestNow({ incremental: true, sliceMs: BACKGROUND_SLICE_MS });
          else await this.ingestNow({ paths: dirty.files, sliceMs: BACKGROUND_SLICE_MS });
          reingested.push(...dirty.files);
        } catch (err) {
          this.watcher.restore(dirty);
          throw err;
        }
      }
      return { generation: this.loadedGeneration, reloaded, reingested };
    });
  }

  /** Makes a checkpoint current (a new generation) and reloads the graph from it. */
  async loadCheckpoint(name: string): Promise<OpenSummary> {
    return this.serialized(() => {
      this.requireStore().restoreCheckpoint(name);
      this.contents.clear();
      return this.openNow();
    });
  }

  /**
   * Starts a watcher that marks edited files dirty for the next `ensureFresh()`, and reconciles the
   * tree with the store at once (edits made while no server ran) and once edits have been quiet a
   * while (events the native watcher dropped).
   */
  async watch(options: WatchOptions = {}): Promise<void> {
    if (this.watcher) return;
    let watcher: WorkspaceWatcher | null = null;
    const reconciler = new WatchReconciler(
      {
        drift: (since) => this.storeDrift(BACKGROUND_SLICE_MS, since),
        mark: (rel) => watcher?.markFile(rel),
        busy: () => (watcher?.pending ?? 0) > 0,
      },
      options.reconcile,
    );
    watcher = new WorkspaceWatcher(this.options.root, {
      isFile: (rel) => this.loadedRows.has(rel),
      ...options,
      onSettled: (pending) => {
        reconciler.arm();
        options.onSettled?.(pending);
      },
    });
    await watcher.start();
    this.watcher = watcher;
    this.reconciler = reconciler;
    // Edits made while no server watched (between the last ingest and this start) have no events.
    const ingestedAt = this.store?.meta().ingestedAt ?? null;
    if (ingestedAt !== null) reconciler.catchUp(ingestedAt);
  }

  /** What the watcher's reconciliations did: runs, and files found changed that no event had reported. */
  get reconciled(): { runs: number; found: number } {
    return { ...(this.reconciler?.stats ?? { runs: 0, found: 0 }) };
  }

  private reconciler: WatchReconciler | null = null;

  /** Stops the watcher (and a reconciliation in flight). */
  async unwatch(): Promise<void> {
    const w = this.watcher;
    const r = this.reconciler;
    this.watcher = null;
    this.reconciler = null;
    await r?.stop();
    await w?.close();
  }

  /**
   * Stops the watcher and the checker pass, waits for queued mutations and for the seek index file
   * being written (a CLI process that built the index exits right after its call: without the wait,
   * the next process would build it again), and closes the store.
   */
  async close(): Promise<void> {
    await this.unwatch();
    await this.precise.stop();
    this.snapshots.flush();
    await this.queue.catch(() => undefined);
    await this.lexical.fileWrite?.catch(() => undefined);
    this.lexical.reset();
    const store = this.storeHandle;
    this.storeHandle = null;
    await store?.close();
  }

  /** The generation, staleness and checker coverage a query result is stamped with. */
  stamp(): Stamped {
    const stamped: Stamped = { generation: this.loadedGeneration, stale: this.rebuilding > 0 || (this.watcher?.pending ?? 0) > 0 };
    const { pending, failed } = this.precise.status();
    if (pending + failed > 0) stamped.notPrecise = pending + failed;
    return stamped;
  }

  /** Paths of all files in the graph, sorted (cached per graph version). */
  filePaths(): string[] {
    const view = this.builder;
    const g = view.graph;
    if (!this.sortedPaths || this.sortedPaths.version !== g.version) this.sortedPaths = { version: g.version, paths: [...view.filePaths()].sort() };
    return this.sortedPaths.paths;
  }
}
