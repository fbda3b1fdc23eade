/**
 * CodeGraphEngine: the code graph service of one workspace. Opens the store and rebuilds the graph
 * from stored extractions, ingests (full or incremental), keeps the graph fresh (store generation
 * written by other processes, watcher-reported edits), and answers lookups, seek, search and safe
 * file reads. A pure library: no MCP, no knowledge of the host.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GraphBuilder, type FileInput, type GitFacts, type UnresolvedImport } from './build.ts';
import { ContentCache, filterSearchPaths, searchContents, type SearchOptions, type SearchResult } from './content-search.ts';
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { FileExtraction } from './extraction.ts';
import { gitFactsFrom } from './git-history.ts';
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import { runIngest, type IngestOptions, type IngestSummary } from './ingest.ts';
import { LexicalIndex, type SeekHit, type SeekOptions } from './lexical-index.ts';
import { findNodes, nearNames, symbolAt, type NodeMatch } from './node-lookup.ts';
import { summarizeParseErrors, type ParseErrorReport } from './parse-report.ts';
import { rankPassages, type Passage, type PassageOptions } from './semantic-search.ts';
import { emptyResolverConfig, type ResolverConfig } from './resolve.ts';
import { loadDefaultParser, type SourceParser } from './source-parser.ts';
import { PageRankCache, nodeStats, type NodeStats, type PageRankResult } from './stats.ts';
import { GraphStore, type CheckpointInfo, type FileRow, type GitCommit, type MemoryEntry, type StoreStatus } from './store.ts';
import { PrecisePass, type PreciseStatus } from './ts-program/precise-pass.ts';
import { WorkspaceWatcher, type WatchOptions } from './watch.ts';
import { realRoot, resolveWorkspacePath, type WorkspacePath } from './workspace.ts';

/** Engine settings. */
export interface CodeGraphEngineOptions {
  /** Workspace root. */
  root: string;
  /** Store directory (default `<root>/.m1nd`). */
  storeDir?: string;
  /** Files larger than this are skipped (default 1 MiB). */
  maxFileBytes?: number;
  /** Extra glob patterns (fast-glob syntax, relative to the root) never ingested. */
  exclude?: string[];
  /** Commits of git history to scan (default 2000; 0 disables). */
  gitMaxCommits?: number;
  /** Characters of file contents `search` keeps in memory (default 64 Mi). */
  searchCacheChars?: number;
  /** Parser implementation (default: the tree-sitter parsers in ./parsers). */
  parser?: SourceParser;
  /** How long a writer waits for another process's transaction (default 10 s). */
  busyTimeoutMs?: number;
  /** Never create a store: a read-only server on a workspace nobody ingested has no graph. */
  readOnly?: boolean;
  /** Run the TS/JS type-checker pass after ingests (default true; stored results are used either way). */
  typeCheck?: boolean;
}

/** What `open()` found in the store. */
export interface OpenSummary {
  generation: number;
  files: number;
  nodes: number;
  edges: number;
  /** False when the store was empty (call `ingest`). */
  loaded: boolean;
  elapsedMs: number;
}

/** What `ensureFresh()` did. */
export interface FreshnessReport {
  generation: number;
  /** True when another process had committed a newer generation and the graph was patched from the store. */
  reloaded: boolean;
  /** Files re-ingested because the watcher saw them change. */
  reingested: string[];
}

/** A file read through the workspace guard. */
export interface FileContent {
  path: string;
  absolutePath: string;
  content: string;
  size: number;
  lines: number;
}

/** A query result stamped with the generation it ran on. */
export interface Stamped {
  generation: number;
  /** True when the watcher knows of edits not yet ingested (call ensureFresh first). */
  stale: boolean;
  /** TS/JS files whose calls are still name-resolved (checker pass pending or failed); absent when 0. */
  notPrecise?: number;
}

const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** Parsed extractions `fileExtraction` keeps (LRU). */
const PARSED_EXTRACTIONS_KEPT = 256;

/** Re-exported: callers of findNodes name its result type from the engine. */
export type { NodeMatch };

/** The code graph engine of one workspace. */
export class CodeGraphEngine {
  readonly root: string;
  readonly storeDir: string;
  private readonly rootReal: string;
  private readonly options: CodeGraphEngineOptions;
  private store: GraphStore | null = null;
  private builder: GraphBuilder;
  /** Signatures and bodies come from the search cache's file contents (filled at ingest). */
  private readonly lexical = new LexicalIndex((path) => this.contents.get(path));
  private readonly ranks = new PageRankCache();
  private readonly contents: ContentCache;
  private parser: SourceParser | null;
  private watcher: WorkspaceWatcher | null = null;
  private loadedGeneration = 0;
  /** path → extraction key of what the in-memory graph was built from. */
  private rows = new Map<string, string>();
  /** Recently read extractions by key (least recently used first), for verbs that read source sites. */
  private readonly parsedExtractions = new Map<string, FileExtraction>();
  private queue: Promise<unknown> = Promise.resolve();
  private sortedPaths: { version: number; paths: string[] } | null = null;
  private readonly precise: PrecisePass;

  constructor(options: CodeGraphEngineOptions) {
    this.options = options;
    this.root = resolve(options.root);
    this.rootReal = realRoot(this.root);
    this.storeDir = resolve(options.storeDir ?? join(this.root, '.m1nd'));
    this.contents = new ContentCache(this.root, options.searchCacheChars ?? 64 * 1024 * 1024);
    this.parser = options.parser ?? null;
    this.builder = this.newBuilder();
    this.precise = new PrecisePass({
      root: this.root,
      canCheck: !options.readOnly && options.typeCheck !== false,
      store: () => this.store,
      builder: () => this.builder,
      serialized: (fn) => this.serialized(fn),
    });
  }

  /** A builder that drops extractions once linked and re-reads them from the store when needed. */
  private newBuilder(): GraphBuilder {
    return new GraphBuilder({
      loadExtraction: (path) => {
        const key = this.rows.get(path);
        return key && this.store ? this.store.extraction(key, path) : null;
      },
    });
  }

  // --- lifecycle -------------------------------------------------------------------------------

  /** Opens the store and rebuilds the graph from stored extractions (no parsing). */
  async open(): Promise<OpenSummary> {
    return this.serialized(() => this.openNow());
  }

  private openNow(): OpenSummary {
    const t0 = performance.now();
    if (!this.storeExists()) return { generation: 0, files: 0, nodes: 0, edges: 0, loaded: false, elapsedMs: 0 };
    this.store ??= new GraphStore(this.storeDir, { busyTimeoutMs: this.options.busyTimeoutMs });
    const { generation, files } = this.store.loadAll({ light: true });
    this.rows = new Map(files.map(({ row }) => [row.path, row.extractionKey]));
    const builder = this.newBuilder();
    if (files.length > 0) {
      builder.apply({
        upsert: files.map(({ row, extraction }) => ({ path: row.path, language: row.language, extraction, partial: true })),
        remove: [],
        git: this.storedGitFacts(),
        config: this.storedResolverConfig(),
      });
    }
    this.swapBuilder(builder);
    this.loadedGeneration = generation;
    this.precise.restore();
    return {
      generation,
      files: files.length,
      nodes: builder.graph.nodeCount,
      edges: builder.graph.edgeCount,
      loaded: files.length > 0,
      elapsedMs: Math.round(performance.now() - t0),
    };
  }

  /** False only for a read-only engine whose store was never created (nothing may create it). */
  storeExists(): boolean {
    return this.store !== null || !this.options.readOnly || existsSync(join(this.storeDir, 'm1nd.db'));
  }

  private requireStore(): GraphStore {
    if (!this.storeExists()) {
      throw new EngineError(EngineErrorCodes.STORE_CLOSED, `no graph store at ${this.storeDir}, and a read-only server does not create one`, 'ingest the workspace with a writable server (without --read-only) first');
    }
    this.store ??= new GraphStore(this.storeDir, { busyTimeoutMs: this.options.busyTimeoutMs });
    return this.store;
  }

  private storedGitFacts(): GitFacts | null {
    const commits = this.requireStore().gitCommits();
    return commits.length ? gitFactsFrom(commits) : null;
  }

  private storedResolverConfig(): ResolverConfig {
    const json = this.requireStore().meta().resolverConfig;
    try {
      return json ? (JSON.parse(json) as ResolverConfig) : emptyResolverConfig();
    } catch {
      return emptyResolverConfig();
    }
  }

  private swapBuilder(builder: GraphBuilder): void {
    this.builder = builder;
    this.ranks.clear();
    this.lexical.reset();
    this.sortedPaths = null;
  }

  /** Runs engine mutations one at a time (ingest, reload, checkpoint load). */
  private serialized<T>(fn: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async getParser(): Promise<SourceParser> {
    this.parser ??= await loadDefaultParser();
    return this.parser;
  }

  /** Ingests the workspace (full by default; `incremental` re-parses changed files only). */
  async ingest(options: IngestOptions = {}): Promise<IngestSummary> {
    return this.serialized(() => this.ingestNow(options));
  }

  private async ingestNow(options: IngestOptions): Promise<IngestSummary> {
    const store = this.requireStore();
    // Diff against what another process may have committed since we loaded.
    if (this.builder.graph.nodeCount === 0 && store.generation() > 0) this.openNow();
    else if (store.generation() !== this.loadedGeneration) this.reloadFromStore();
    const parser = await this.getParser();
    const outcome = await runIngest(
      {
        root: this.root,
        store,
        builder: this.builder,
        newBuilder: () => this.newBuilder(),
        parser,
        maxFileBytes: this.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
        exclude: this.options.exclude ?? [],
        gitMaxCommits: this.options.gitMaxCommits ?? 2000,
      },
      options,
    );
    if (outcome.rebuilt) {
      this.contents.clear();
      this.swapBuilder(outcome.builder);
      this.rows = new Map(outcome.rows.map((r) => [r.path, r.extractionKey]));
    } else {
      this.sortedPaths = null;
    }
    for (const path of outcome.removed) {
      this.rows.delete(path);
      this.contents.drop(path);
    }
    for (const row of outcome.rows) this.rows.set(row.path, row.extractionKey);
    for (const [path, text] of outcome.texts) this.contents.put(path, text);
    this.precise.afterIngest([...outcome.rows.map((r) => r.path), ...outcome.removed], outcome.rebuilt);
    const raced = outcome.previousGeneration !== this.loadedGeneration;
    this.loadedGeneration = outcome.summary.generation;
    // Another process committed between our read and our write: fold its files in too.
    if (raced) this.reloadFromStore();
    return outcome.summary;
  }

  /** Patches the graph to the store's current files (other processes' commits), by extraction key. */
  private reloadFromStore(): boolean {
    const store = this.requireStore();
    const generation = store.generation();
    const stored = store.fileRows();
    const upsert: FileInput[] = [];
    const remove: string[] = [];
    for (const [path, row] of stored) {
      if (this.rows.get(path) === row.extractionKey) continue;
      const extraction = store.extraction(row.extractionKey, path);
      if (extraction) upsert.push({ path, language: row.language, extraction });
    }
    for (const path of this.rows.keys()) if (!stored.has(path)) remove.push(path);
    // Git facts are re-derived from the stored commits: the other writer may have rescanned history.
    this.builder.apply({ upsert, remove, git: this.storedGitFacts(), config: this.storedResolverConfig() });
    this.sortedPaths = null;
    for (const f of upsert) this.contents.drop(f.path);
    for (const p of remove) this.contents.drop(p);
    this.rows = new Map([...stored].map(([p, r]: [string, FileRow]) => [p, r.extractionKey]));
    this.loadedGeneration = generation;
    // The other writer's checker results for these files, if it stored them already.
    this.precise.restore(upsert.map((f) => f.path));
    return upsert.length > 0 || remove.length > 0;
  }

  /**
   * Brings the graph up to date before a query: patches in what other processes committed, then
   * re-ingests files the watcher saw change. Cheap when nothing changed (one SELECT).
   */
  async ensureFresh(): Promise<FreshnessReport> {
    return this.serialized(async () => {
      const store = this.requireStore();
      let reloaded = false;
      if (store.generation() !== this.loadedGeneration) {
        if (this.builder.graph.nodeCount === 0) this.openNow();
        else this.reloadFromStore();
        reloaded = true;
      }
      const reingested: string[] = [];
      if (this.watcher && this.watcher.pending > 0) {
        const dirty = this.watcher.drain();
        try {
          // A directory came or went: only a walk knows its files.
          if (dirty.dirs.length > 0) await this.ingestNow({ incremental: true });
          else await this.ingestNow({ paths: dirty.files });
          reingested.push(...dirty.files);
        } catch (err) {
          this.watcher.restore(dirty);
          throw err;
        }
      }
      return { generation: this.loadedGeneration, reloaded, reingested };
    });
  }

  /** Starts a watcher that marks edited files dirty for the next `ensureFresh()`. */
  async watch(options: WatchOptions = {}): Promise<void> {
    if (this.watcher) return;
    this.watcher = new WorkspaceWatcher(this.root, options);
    await this.watcher.start();
  }

  /** Stops the watcher. */
  async unwatch(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    await w?.close();
  }

  /** Stops the watcher and closes the store. */
  async close(): Promise<void> {
    await this.unwatch();
    await this.precise.stop();
    await this.queue.catch(() => undefined);
    this.store?.close();
    this.store = null;
  }

  // --- graph access ----------------------------------------------------------------------------

  /** The current graph (replaced by a full ingest; hold ids, not indices, across calls). */
  get graph(): CodeGraph {
    return this.builder.graph;
  }

  /** The store generation the graph reflects. */
  get generation(): number {
    return this.loadedGeneration;
  }

  private stamp(): Stamped {
    const stamped: Stamped = { generation: this.loadedGeneration, stale: (this.watcher?.pending ?? 0) > 0 };
    const { pending, failed } = this.precise.status();
    if (pending + failed > 0) stamped.notPrecise = pending + failed;
    return stamped;
  }

  /** How many TS/JS files have checker-resolved calls, are pending, or failed; and the last pass's cost. */
  preciseStatus(): PreciseStatus {
    return this.precise.status();
  }

  /** Resolves once the checker pass has nothing running or queued. */
  async preciseIdle(): Promise<PreciseStatus> {
    await this.precise.idle();
    return this.precise.status();
  }

  /** A node by exact id, or null. */
  getNode(id: string): GraphNode | null {
    return this.builder.graph.get(id);
  }

  /** A node by exact id; throws a coded error naming what to do otherwise. */
  requireNode(id: string): GraphNode {
    const n = this.getNode(id);
    if (n) return n;
    const lexical = this.findNodes(id, { limit: 3 }).map((m) => m.node.id);
    const near = lexical.length ? lexical : nearNames(this.builder.graph, id, 3);
    throw new EngineError(
      EngineErrorCodes.GRAPH_NODE_NOT_FOUND,
      `no node with id "${id}"`,
      near.length ? `did you mean ${near.map((x) => `"${x}"`).join(', ')}? Pass one of these ids` : 'find ids with seek, or ingest the workspace first',
    );
  }

  /**
   * Finds nodes for an id or free text: exact id, a path (or `path:line` → innermost symbol there),
   * an exact label (case-sensitive, then not), a qualified-name suffix (`Class.method`), then seek.
   */
  findNodes(text: string, options: { limit?: number; kinds?: readonly NodeKind[] } = {}): NodeMatch[] {
    return findNodes(this.builder.graph, text, options, { pagerank: () => this.pagerank().scores, lexical: this.lexical });
  }

  /** The best match of `findNodes`, or null. */
  resolveNode(text: string, options: { kinds?: readonly NodeKind[] } = {}): GraphNode | null {
    return this.findNodes(text, { limit: 1, kinds: options.kinds })[0]?.node ?? null;
  }

  /** The innermost symbol spanning a line of a file (the file node when none does), or null. */
  symbolAt(path: string, line: number): GraphNode | null {
    return symbolAt(this.builder.graph, path, line);
  }

  /** Files of the loaded graph whose parse had errors: totals and the `limit` worst. */
  parseErrorFiles(limit?: number): ParseErrorReport {
    return summarizeParseErrors(this.builder.parseErrorFiles(), limit);
  }

  /** Imports that did not resolve to a workspace file (records, never edges). */
  unresolvedImports(): UnresolvedImport[] {
    return this.builder.unresolvedImports();
  }

  /** PageRank of the current graph (cached per graph version). */
  pagerank(): PageRankResult {
    return this.ranks.get(this.builder.graph);
  }

  /** Degrees, LOC and PageRank of a node. */
  nodeStats(id: string): NodeStats {
    const node = this.requireNode(id);
    return nodeStats(this.builder.graph, this.builder.graph.indexOf(node.id), this.pagerank());
  }

  /** The scanned git history (newest first) and the per-file facts derived from it. */
  gitHistory(): { commits: GitCommit[]; facts: GitFacts | null } {
    return { commits: this.requireStore().gitCommits(), facts: this.builder.gitFacts };
  }

  /** Paths of all files in the graph, sorted. */
  filePaths(): string[] {
    const g = this.builder.graph;
    if (!this.sortedPaths || this.sortedPaths.version !== g.version) this.sortedPaths = { version: g.version, paths: [...this.builder.filePaths()].sort() };
    return this.sortedPaths.paths;
  }

  // --- queries ---------------------------------------------------------------------------------

  /** Ranked nodes for a free-text query (BM25 over names, paths, docs; PageRank re-rank). */
  seek(query: string, options: SeekOptions = {}): Stamped & { results: SeekHit[] } {
    const g = this.builder.graph;
    const pr = options.graphRerank === false ? null : this.pagerank().scores;
    return { ...this.stamp(), results: this.lexical.query(g, query, pr, options) };
  }

  /**
   * Semantic search: the best-matching line of each seek candidate, with context, ranked by the
   * candidate's score and the share of the query that line holds (see semantic-search.ts).
   */
  searchPassages(query: string, options: SeekOptions & PassageOptions = {}): Stamped & { results: Passage[] } {
    const topK = options.topK ?? 20;
    const candidates = this.seek(query, { ...options, topK: Math.max(30, topK * 3) }).results;
    const results = rankPassages(query, candidates, (p) => this.contents.get(p), (t) => this.lexical.idf(t), { topK, contextLines: options.contextLines });
    return { ...this.stamp(), results };
  }

  /** grep-like search over the contents of ingested files. */
  search(query: string, options: SearchOptions = {}): Stamped & SearchResult {
    const paths = filterSearchPaths(this.filePaths(), options);
    return { ...this.stamp(), ...searchContents(paths, this.contents, query, options) };
  }

  /** Loads every ingested file's text into the search cache (optional; the first search does it lazily). */
  warmSearchCache(): number {
    for (const p of this.filePaths()) this.contents.get(p);
    return this.contents.size;
  }

  /** Builds the seek index and PageRank now instead of on the first query that needs them. */
  warmIndexes(): void {
    this.lexical.ensure(this.builder.graph);
    this.pagerank();
  }

  /** Resolves a user path inside the workspace (refusing `..`, outside absolute paths, symlink escapes). */
  resolvePath(userPath: string): WorkspacePath {
    return resolveWorkspacePath(this.root, userPath, this.rootReal);
  }

  /** Reads a workspace file as UTF-8 through the path guard. */
  readFile(userPath: string): FileContent {
    const p = this.resolvePath(userPath);
    let size: number;
    try {
      const st = statSync(p.absolute);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch {
      throw new EngineError(EngineErrorCodes.PATH_NOT_FOUND, `no file "${p.relative}" in ${this.root}`, 'list files with glob or seek, then pass one of their paths');
    }
    const content = readFileSync(p.absolute, 'utf8');
    let lines = content.length === 0 ? 0 : 1;
    for (let i = content.indexOf('\n'); i >= 0 && i < content.length - 1; i = content.indexOf('\n', i + 1)) lines++;
    return { path: p.relative, absolutePath: p.absolute, content, size, lines };
  }

  // --- persistence -----------------------------------------------------------------------------

  /** Flushes the store (every ingest already committed; this folds the WAL into the database). */
  save(): StoreStatus {
    const store = this.requireStore();
    store.flush();
    return store.status();
  }

  /** Saves the current graph's files state under a name. */
  checkpoint(name: string): CheckpointInfo {
    return this.requireStore().checkpoint(name);
  }

  /** Makes a checkpoint current (a new generation) and reloads the graph from it. */
  async loadCheckpoint(name: string): Promise<OpenSummary> {
    return this.serialized(() => {
      this.requireStore().restoreCheckpoint(name);
      this.contents.clear();
      return this.openNow();
    });
  }

  /** What the store recorded per ingested file (hash, size, mtime, loc), all or only `paths`. */
  storedFiles(paths?: readonly string[]): Map<string, FileRow> {
    const rows = this.requireStore().fileRows();
    if (!paths) return rows;
    return new Map(paths.flatMap((p) => (rows.has(p) ? [[p, rows.get(p)!] as const] : [])));
  }

  /** The file rows a named checkpoint saved, or null when there is none. */
  checkpointFiles(name: string): { info: CheckpointInfo; files: Map<string, FileRow> } | null {
    return this.requireStore().checkpointFiles(name);
  }

  /** The extraction the in-memory graph was built from for a file (read from the store), or null. */
  fileExtraction(path: string): FileExtraction | null {
    const key = this.rows.get(path);
    if (!key || !this.store) return null;
    // Keys are content-addressed, so a cached parse never goes stale; parsing dominates the cost.
    const hit = this.parsedExtractions.get(key);
    if (hit) {
      this.parsedExtractions.delete(key);
      this.parsedExtractions.set(key, hit);
      return hit.path === path ? hit : { ...hit, path };
    }
    const ex = this.store.extraction(key, path);
    if (!ex) return null;
    this.parsedExtractions.set(key, ex);
    if (this.parsedExtractions.size > PARSED_EXTRACTIONS_KEPT) this.parsedExtractions.delete(this.parsedExtractions.keys().next().value!);
    return ex;
  }

  /** A stored extraction by its key (from a file row), or null. */
  storedExtraction(key: string, path: string): FileExtraction | null {
    return this.requireStore().extraction(key, path);
  }

  /** Deletes a checkpoint. */
  deleteCheckpoint(name: string): boolean {
    return this.requireStore().deleteCheckpoint(name);
  }

  /** Store status plus what is loaded in memory. */
  status(): StoreStatus & { loadedGeneration: number; nodes: number; edges: number; stale: boolean; searchCacheChars: number; lexical: ReturnType<LexicalIndex['stats']> } {
    return {
      ...this.requireStore().status(),
      loadedGeneration: this.loadedGeneration,
      nodes: this.builder.graph.nodeCount,
      edges: this.builder.graph.edgeCount,
      stale: this.stamp().stale || this.requireStore().generation() !== this.loadedGeneration,
      searchCacheChars: this.contents.size,
      lexical: this.lexical.stats(),
    };
  }

  /** Generic per-namespace memory tables in the same store (for other features). */
  get memory(): {
    get<T = unknown>(namespace: string, key: string): MemoryEntry<T> | undefined;
    set(namespace: string, key: string, value: unknown): MemoryEntry;
    delete(namespace: string, key: string): boolean;
    list<T = unknown>(namespace: string, prefix?: string, limit?: number): MemoryEntry<T>[];
    transaction<T>(fn: () => T): T;
  } {
    const store = this.requireStore();
    return {
      get: (ns, key) => store.memoryGet(ns, key),
      set: (ns, key, value) => store.memorySet(ns, key, value),
      delete: (ns, key) => store.memoryDelete(ns, key),
      list: (ns, prefix, limit) => store.memoryList(ns, prefix, limit),
      transaction: (fn) => store.transaction(fn),
    };
  }
}
