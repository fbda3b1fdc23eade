/**
 * CodeGraphEngine: the code graph service of one workspace. Opens the store and rebuilds the graph
 * from stored extractions, ingests (full or incremental), keeps the graph fresh (store generation
 * written by other processes, watcher-reported edits), and answers lookups, seek, search and safe
 * file reads. A pure library: no MCP, no knowledge of the host.
 *
 * This class is the public face; the graph's lifecycle lives in LoadedGraph (loaded-graph.ts), the
 * store's checkpoints, stored rows and status in EnginePersistence (engine-persistence.ts), and each
 * query in the module named after it.
 */
import { join, resolve } from 'node:path';
import type { GitFacts, UnresolvedImport } from './build.ts';
import { filterSearchPaths, searchSteps, type SearchOptions, type SearchResult } from './content-search.ts';
import { EnginePersistence } from './engine-persistence.ts';
import type { FreshnessReport, OpenSummary, Stamped } from './engine-results.ts';
import type { WalkEntry } from './walk.ts';
import type { StoreDrift } from './store-drift.ts';
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import type { FileExtraction } from './extraction.ts';
import type { IngestOptions, IngestSummary } from './ingest.ts';
import type { SeekHit, SeekOptions } from './lexical-index.ts';
import { LoadedGraph } from './loaded-graph.ts';
import { findNodes, findNodesPaced, symbolAt, type LookupAids, type NodeMatch } from './node-lookup.ts';
import { didYouMean, nearNames } from './near-names.ts';
import { ParseExtensionRegistry, type ExtensionChange, type ExtensionReport, type ParseExtensionSpec } from './parse-extensions.ts';
import { summarizeParseErrors, type ParseErrorReport } from './parse-report.ts';
import { rankPassages, type Passage, type PassageOptions } from './semantic-search.ts';
import type { SourceParser } from './source-parser.ts';
import { nodeStats, type NodeStats, type PageRankResult } from './stats.ts';
import { afterBackgroundWork, BACKGROUND_SLICE_MS, runSteps, runStepsPaced, slicePace } from './steps.ts';
import type { GitCommit } from './store.ts';
import type { PreciseStatus } from './ts-program/precise-pass.ts';
import type { WatchOptions } from './watch.ts';
import { readWorkspaceFile, type FileContent } from './workspace-file.ts';
import { realRoot, resolveWorkspacePath, type WorkspacePath } from './workspace.ts';

/** Re-exported: callers name these result types from the engine. */
export type { FileContent, FreshnessReport, NodeMatch, OpenSummary, Stamped };

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
  /** Parse worker threads of an ingest (default one per core; 0 parses on the main thread). */
  parseWorkers?: number;
  /** How much lower the parse workers' threads run than the main thread (Linux nice; default 10, 0: the same). */
  workerNice?: number;
  /**
   * Load the graph from the store's snapshot when it holds, and write one after each change
   * (default true; false always re-links the stored extractions).
   */
  snapshots?: boolean;
}

const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** The code graph engine of one workspace. */
export class CodeGraphEngine extends EnginePersistence {
  readonly root: string;
  readonly storeDir: string;
  private readonly rootReal: string;
  /** Parse extensions run by this engine's ingests. */
  private readonly extensions: ParseExtensionRegistry;

  constructor(options: CodeGraphEngineOptions) {
    const root = resolve(options.root);
    const storeDir = resolve(options.storeDir ?? join(root, '.m1nd'));
    const extensions = new ParseExtensionRegistry();
    super(
      new LoadedGraph({
        root,
        storeDir,
        maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
        exclude: options.exclude ?? [],
        gitMaxCommits: options.gitMaxCommits ?? 2000,
        searchCacheChars: options.searchCacheChars ?? 64 * 1024 * 1024,
        parser: options.parser ?? null,
        busyTimeoutMs: options.busyTimeoutMs,
        readOnly: options.readOnly === true,
        typeCheck: options.typeCheck !== false,
        parseWorkers: options.parseWorkers,
        workerNice: options.workerNice,
        snapshots: options.snapshots,
        extensions,
      }),
    );
    this.root = root;
    this.rootReal = realRoot(root);
    this.storeDir = storeDir;
    this.extensions = extensions;
  }

  // --- lifecycle -------------------------------------------------------------------------------

  /** Opens the store and rebuilds the graph from stored extractions (no parsing). */
  async open(): Promise<OpenSummary> {
    return this.loaded.open();
  }

  /** False only for a read-only engine whose store was never created (nothing may create it). */
  storeExists(): boolean {
    return this.loaded.storeExists();
  }

  /** Whether the store is open or its file exists (false for a workspace never ingested). */
  storeCreated(): boolean {
    return this.loaded.storeCreated();
  }

  /** The extraction of a text that is not the file on disk (an edit's preview): in a parse worker when this thread would hold the loop for it; null for a file of no known language. */
  extractText(path: string, text: string): Promise<FileExtraction | null> {
    return this.loaded.extractText(path, text);
  }

  /** Ingests the workspace (full by default; `incremental` re-parses changed files only). */
  async ingest(options: IngestOptions = {}): Promise<IngestSummary> {
    return this.loaded.ingest(options);
  }

  /**
   * Brings the graph up to date before a query: patches in what other processes committed, then
   * re-ingests files the watcher saw change. Cheap when nothing changed (one SELECT).
   */
  async ensureFresh(): Promise<FreshnessReport> {
    return this.loaded.ensureFresh();
  }

  /** Starts a watcher that marks edited files dirty for the next `ensureFresh()`. */
  async watch(options: WatchOptions = {}): Promise<void> {
    return this.loaded.watch(options);
  }

  /** Stops the watcher. */
  async unwatch(): Promise<void> {
    return this.loaded.unwatch();
  }

  /** What the watcher's reconciliations did: runs, and files found changed that no event had reported. */
  get reconciled(): { runs: number; found: number } {
    return this.loaded.reconciled;
  }

  /** Stops the watcher and closes the store. */
  async close(): Promise<void> {
    return this.loaded.close();
  }

  // --- parse extensions (parse-extensions.ts) ---------------------------------------------------

  /** Registers work on each parsed file's tree inside the ingest's parse; it runs from the next ingest on. */
  registerParseExtension(spec: ParseExtensionSpec): void {
    this.extensions.register(spec);
  }

  /** A registered extension's outputs by path, for files whose stored hash is the one each was made from, under the registered version. */
  extensionData<T = unknown>(key: string, paths?: readonly string[]): Map<string, T> {
    const version = this.extensions.version(key);
    const out = new Map<string, T>();
    const store = version === null ? null : this.loaded.store;
    if (store) for (const [path, json] of store.extensionRows(key, version!, paths)) out.set(path, JSON.parse(json) as T);
    return out;
  }

  /** Called after each ingest of this process that wrote or removed extension rows; returns the unsubscribe. */
  onExtensionData(listener: (change: ExtensionChange) => void): () => void {
    return this.extensions.onChange(listener);
  }

  /** What each parse extension did in this process's last ingest that ran it. */
  parseExtensionReport(): Record<string, ExtensionReport> {
    return this.extensions.report;
  }

  // --- graph access ----------------------------------------------------------------------------

  /** The current graph (replaced by a full ingest; hold ids, not indices, across calls). */
  get graph(): CodeGraph {
    return this.loaded.builder.graph;
  }

  /** The store generation the graph reflects. */
  get generation(): number {
    return this.loaded.generation;
  }

  /** How many TS/JS files have checker-resolved calls, are pending, or failed; and the last pass's cost. */
  preciseStatus(): PreciseStatus {
    return this.loaded.precise.status();
  }

  /** Resolves once the checker pass has nothing running or queued. */
  async preciseIdle(): Promise<PreciseStatus> {
    await this.loaded.precise.idle();
    return this.loaded.precise.status();
  }

  /** A node by exact id, or null. */
  getNode(id: string): GraphNode | null {
    return this.graph.get(id);
  }

  /** A node by exact id; throws a coded error naming what to do otherwise. */
  requireNode(id: string): GraphNode {
    const n = this.getNode(id);
    if (n) return n;
    const lexical = this.findNodes(id, { limit: 3 }).map((m) => m.node.id);
    const near = didYouMean(this.graph, id, lexical, 3);
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
    return findNodes(this.graph, text, options, this.lookupAids());
  }

  /** `findNodes` in slices of `sliceMs` of main-thread time (a call's node argument: a typo scans every label). */
  findNodesPaced(text: string, options: { limit?: number; kinds?: readonly NodeKind[] } = {}, sliceMs = 8): Promise<NodeMatch[]> {
    return findNodesPaced(this.graph, text, options, this.lookupAids(), slicePace(sliceMs));
  }

  /** What a node lookup consults beyond the graph (the federated view: its own PageRank and index). */
  protected lookupAids(): LookupAids {
    return { pagerank: () => this.pagerank().scores, lexical: this.loaded.lexical };
  }

  /** The best match of `findNodes`, or null. */
  resolveNode(text: string, options: { kinds?: readonly NodeKind[] } = {}): GraphNode | null {
    return this.findNodes(text, { limit: 1, kinds: options.kinds })[0]?.node ?? null;
  }

  /** The innermost symbol spanning a line of a file (the file node when none does), or null. */
  symbolAt(path: string, line: number): GraphNode | null {
    return symbolAt(this.graph, path, line);
  }

  /** Files of the loaded graph whose parse had errors: totals and the `limit` worst. */
  parseErrorFiles(limit?: number): ParseErrorReport {
    return summarizeParseErrors(this.loaded.builder.parseErrorFiles(), limit);
  }

  /** Imports that did not resolve to a workspace file (records, never edges). */
  unresolvedImports(): UnresolvedImport[] {
    return this.loaded.builder.unresolvedImports();
  }

  /** PageRank of the current graph (cached per graph version). */
  pagerank(): PageRankResult {
    return this.loaded.ranks.get(this.graph);
  }

  /** Degrees, LOC and PageRank of a node. */
  nodeStats(id: string): NodeStats {
    const node = this.requireNode(id);
    return nodeStats(this.graph, this.graph.indexOf(node.id), this.pagerank());
  }

  /** The scanned git history (newest first) and the per-file facts derived from it. */
  gitHistory(): { commits: GitCommit[]; facts: GitFacts | null } {
    return { commits: this.loaded.requireStore().gitCommits(), facts: this.loaded.builder.gitFacts };
  }

  /**
   * The files an ingest would select now (skip list, .gitignore, excludes, size, languages), listed
   * without holding the event loop (slices of `sliceMs`); nothing is read or parsed. For catch-up
   * scans that compare the disk with the graph (files added while nothing watched).
   */
  walkFiles(sliceMs = 10): Promise<WalkEntry[]> {
    return this.loaded.walkFiles(sliceMs);
  }

  /**
   * How the files on disk differ from what the store recorded (size, mtime), without any event:
   * changed, added (no row, modified since `since`), left out by the ingest (no row, older), gone;
   * with `within`, of the paths it accepts only (a watched folder's).
   */
  storeDrift(sliceMs: number, since: number, within?: (path: string) => boolean): Promise<StoreDrift> {
    return this.loaded.storeDrift(sliceMs, since, within);
  }

  /** Paths of all files in the graph, sorted. */
  filePaths(): string[] {
    return this.loaded.filePaths();
  }

  // --- queries ---------------------------------------------------------------------------------

  /** Ranked nodes for a free-text query (BM25 over names, paths, docs; PageRank re-rank). */
  seek(query: string, options: SeekOptions = {}): Stamped & { results: SeekHit[] } {
    const g = this.graph;
    const pr = options.graphRerank === false ? null : this.pagerank().scores;
    return { ...this.loaded.stamp(), results: this.loaded.lexical.query(g, query, pr, options) };
  }

  /**
   * Semantic search: the best-matching line of each seek candidate, with context, ranked by the
   * candidate's score and the share of the query that line holds (see semantic-search.ts).
   */
  searchPassages(query: string, options: SeekOptions & PassageOptions = {}): Stamped & { results: Passage[] } {
    const topK = options.topK ?? 20;
    const candidates = this.seek(query, { ...options, topK: Math.max(30, topK * 3) }).results;
    const { contents, lexical } = this.loaded;
    const results = rankPassages(query, candidates, (p) => contents.get(p), (t) => lexical.idf(t), { topK, contextLines: options.contextLines });
    return { ...this.loaded.stamp(), results };
  }

  /** grep-like search over the contents of ingested files. */
  search(query: string, options: SearchOptions = {}): Stamped & SearchResult {
    return runSteps(this.searchSteps(query, options));
  }

  /** `search` between `pace()`s, a file per step (so a whole-workspace scan never holds the event loop). */
  async searchPaced(query: string, options: SearchOptions, pace: () => Promise<void>): Promise<Stamped & SearchResult> {
    return (await runStepsPaced(this.searchSteps(query, options), pace))!;
  }

  /** `search` as steps of one file each (a federated view searches its members' steps in turn). */
  *searchSteps(query: string, options: SearchOptions = {}): Generator<void, Stamped & SearchResult> {
    const paths = filterSearchPaths(this.filePaths(), options);
    const stamp = this.loaded.stamp();
    return { ...stamp, ...(yield* searchSteps(paths, this.loaded.contents, query, options)) };
  }

  /** Loads every ingested file's text into the search cache (optional; the first search does it lazily). */
  warmSearchCache(): number {
    for (const p of this.filePaths()) this.loaded.contents.get(p);
    return this.loaded.contents.size;
  }

  /** Builds (or catches up) the seek index and PageRank in slices that leave the event loop free; await it before `seek`. */
  async prepareSeek(): Promise<void> {
    // Catching up after a change (a burst re-ingested: thousands of nodes to re-index, a PageRank to
    // redo) is work other requests should not wait behind: background-sized slices.
    // Both at once: a big graph's index is built in a worker, PageRank in slices meanwhile.
    await Promise.all([this.loaded.lexical.ensureAsync(this.graph, BACKGROUND_SLICE_MS), this.loaded.ranks.getAsync(this.graph, BACKGROUND_SLICE_MS)]);
    // The query that follows starts in a turn of its own, not after the last slice of the build.
    await afterBackgroundWork();
  }

  /**
   * Builds the seek index and PageRank now (in slices that leave the event loop free) instead of on
   * the first query that needs them.
   */
  warmIndexes(): Promise<void> {
    return this.prepareSeek();
  }

  /** Resolves a user path inside the workspace (refusing `..`, outside absolute paths, symlink escapes). */
  resolvePath(userPath: string): WorkspacePath {
    return resolveWorkspacePath(this.root, userPath, this.rootReal);
  }

  /** Reads a workspace file as UTF-8 through the path guard; a missing one is refused naming the graph's files a few edits away. */
  readFile(userPath: string): FileContent {
    try {
      return readWorkspaceFile(this.root, this.rootReal, userPath);
    } catch (error) {
      if (!(error instanceof EngineError) || error.code !== EngineErrorCodes.PATH_NOT_FOUND) throw error;
      throw new EngineError(error.code, error.message, this.missingFileHint(userPath));
    }
  }

  /** The paths of the graph's files a few edits away from `userPath` (nearest first, at most `limit`), as a file argument takes them. */
  nearFilePaths(userPath: string, limit = 3): string[] {
    return nearNames(this.graph, userPath, limit, ['file']).map((id) => this.graph.get(id)!.path);
  }

  /** What to tell an agent whose path names no file: the graph's files a few edits away, else how to list them. */
  missingFileHint(userPath: string): string {
    const near = this.nearFilePaths(userPath).map((path) => `"${path}"`);
    return near.length ? `did you mean ${near.join(', ')}? Pass one of these paths (or list files with glob or seek)` : 'list files with glob or seek, then pass one of their paths';
  }
}
