/**
 * One ingest run: walk (or check the given paths), compare with the stored files (size + mtime,
 * then content hash), read and parse what changed, scan git history when HEAD moved, commit
 * everything in one store transaction, and build (full runs: a new graph whose nodes are made as the
 * parse delivers files) or patch the graph, swapping it in only after the commit. A failure or abort
 * before the commit leaves both the store and the in-memory graph as they were.
 */
import type { FileInput, GitFacts, GraphBuilder } from './build.ts';
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { Language } from './extraction.ts';
import { findGitDir, gitFactsFrom, readGitHead, scanGitLog } from './git-history.ts';
import type { NodeKind, Relation } from './graph.ts';
import { readResolverConfig } from './resolver-config.ts';
import { yieldToLoop } from './steps.ts';
import type { ResolverConfig } from './resolve.ts';
import { summarizeParseErrors, type ParseErrorReport } from './parse-report.ts';
import { parseFile, type ParseOutcome, type ParseTask } from './parse-pool/parse-file.ts';
import { defaultParseWorkers, sharedParsePool } from './parse-pool/pool.ts';
import type { FileExtractor, SourceParser } from './source-parser.ts';
import type { FileRow, FileWrite, GitCommit, GraphStore } from './store.ts';
import { lightExtraction } from './store-files.ts';
import type { CommitStream } from './store-writer/writer.ts';
import { checkPathsAsync, walkWorkspaceAsync, WalkCache, type SkipReason, type SkippedPath, type WalkEntry } from './walk.ts';

export { extractionKey } from './parse-pool/parse-file.ts';

/** Ingest phases reported to the progress callback. */
export type IngestPhase = 'walk' | 'read' | 'parse' | 'git' | 'persist' | 'build';

/** Options of one ingest. */
export interface IngestOptions {
  /** Re-parse only files whose size/mtime and then content hash changed (default false: re-parse all). */
  incremental?: boolean;
  /** Only look at these workspace-relative files (implies incremental; deleted ones are removed). */
  paths?: readonly string[];
  onProgress?: (done: number, total: number, phase: IngestPhase) => void;
  signal?: AbortSignal;
  /** Parse worker threads (default: the engine's setting, one per core); 0 parses on the main thread. */
  workers?: number;
  /**
   * A large run hands its rows to the store's commit worker every this many files while it still
   * parses (default 64), so the JSON of every extraction is never held on the main thread at once.
   */
  commitBatchFiles?: number;
  /**
   * Main-thread work between two yields to the event loop (default 20 ms); background callers (the
   * daemon) pass a few ms, so a request arriving meanwhile waits no longer than that.
   */
  sliceMs?: number;
}

/** What an ingest did. */
export interface IngestSummary {
  mode: 'full' | 'incremental' | 'paths';
  generation: number;
  files: {
    /** Files that qualified for the graph. */
    scanned: number;
    /** Files read and parsed. */
    parsed: number;
    /** Files read whose content hash matched the stored one (no parse). */
    reused: number;
    /** Files skipped by size + mtime without reading. */
    unchanged: number;
    removed: number;
    skipped: number;
  };
  /** Skipped files and directories (capped; `unsupported` files are only counted). */
  skipped: SkippedPath[];
  skippedTruncated: boolean;
  skippedByReason: Partial<Record<SkipReason, number>>;
  nodes: number;
  nodesByKind: Record<NodeKind, number>;
  edges: number;
  edgesByRelation: Record<Relation, number>;
  imports: { resolved: number; unresolved: number; external: number; notFound: number };
  /** Files whose parse had errors: totals and the worst few, with the line of their first error. */
  parseErrors: ParseErrorReport;
  git: { scanned: boolean; commits: number; head: string | null } | null;
  /** Files whose edges were rebuilt by the graph patch (incremental) or all files (full). */
  relinkedFiles: number;
  /** Worker threads that read and parsed the files (0: the main thread did). */
  parseWorkers: number;
  elapsedMs: number;
  phases: Record<'walk' | 'read' | 'parse' | 'git' | 'persist' | 'build', number>;
}

/** What the engine hands an ingest run. */
export interface IngestContext {
  root: string;
  store: GraphStore;
  /** The current graph builder (patched in place by incremental runs; replaced by full runs). */
  builder: GraphBuilder;
  /** Makes an empty builder for a full run (the engine wires its extraction loader in). */
  newBuilder: () => GraphBuilder;
  parser: SourceParser;
  maxFileBytes: number;
  exclude: readonly string[];
  gitMaxCommits: number;
  /** Parse worker threads when the run does not say (default one per core; 0: main thread only). */
  parseWorkers?: number;
  /**
   * Takes each parsed file's text as it arrives (the engine's bounded search cache), so a big run
   * never holds every text at once; without it the texts come back in `IngestOutcome.texts`.
   */
  keepText?: (path: string, text: string) => void;
}

/** An ingest's result: the builder to use from now on, the summary, and texts read (for search). */
export interface IngestOutcome {
  builder: GraphBuilder;
  summary: IngestSummary;
  /** Texts of files parsed in this run (empty when the context's `keepText` took them). */
  texts: Map<string, string>;
  /** Paths whose content changed or that were removed. */
  changed: string[];
  removed: string[];
  /** True when the builder was replaced (callers rebuild their indexes). */
  rebuilt: boolean;
  /** Rows written by this run (new keys for changed files). */
  rows: FileRow[];
  /** Generation the store had just before this run committed (differs from the loaded one when another process wrote meanwhile). */
  previousGeneration: number;
}

const MAX_SKIP_LIST = 200;
/** Main-thread work between two yields to the event loop (a slice may overrun by one file's step). */
const SLICE_MS = 20;
const YIELD_EVERY_MS = SLICE_MS;
/**
 * Fewer files than this parse on the main thread: a watcher's or an agent's re-ingest of a few
 * files is faster there than a round trip through the workers (or their start-up when idle).
 */
const POOL_MIN_FILES = 48;
/** Runs reading at least this many files commit through the store's commit worker (smaller commits take a few ms here). */
const OFF_THREAD_COMMIT_FILES = 48;
/** Rows handed to the commit worker at a time during the parse (see IngestOptions.commitBatchFiles). */
const COMMIT_BATCH_FILES = 64;

function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError(EngineErrorCodes.INGEST_ABORTED, 'ingest aborted before commit; the previous graph is unchanged', 'run ingest again when ready');
}

const now = (): number => performance.now();

/** Each store's walk cache: incremental runs re-list the tree only when a directory changed. */
const walkCaches = new WeakMap<GraphStore, WalkCache>();
export function walkCacheOf(store: GraphStore): WalkCache {
  let cache = walkCaches.get(store);
  if (!cache) walkCaches.set(store, (cache = new WalkCache()));
  return cache;
}

/** Runs one ingest. */
export async function runIngest(ctx: IngestContext, options: IngestOptions = {}): Promise<IngestOutcome> {
  // The run's commit stream until it is committed: whatever ends the run before (an abort, an
  // error) tells the commit worker to forget the rows handed to it.
  const open: { stream: CommitStream | null } = { stream: null };
  try {
    return await ingestRun(ctx, options, open);
  } catch (err) {
    open.stream?.drop();
    throw err;
  }
}

async function ingestRun(ctx: IngestContext, options: IngestOptions, open: { stream: CommitStream | null }): Promise<IngestOutcome> {
  const t0 = now();
  const phases = { walk: 0, read: 0, parse: 0, git: 0, persist: 0, build: 0 };
  const progress = options.onProgress ?? (() => {});
  const pathsMode = options.paths !== undefined;
  const incremental = pathsMode || options.incremental === true;
  const { root, store, parser } = ctx;
  const meta = store.meta();
  const parserChanged = meta.parserVersion !== parser.version;

  // 1. Which files qualify.
  let t = now();
  progress(0, 1, 'walk');
  const walkOptions = { root, maxFileBytes: ctx.maxFileBytes, exclude: ctx.exclude, detectLanguage: parser.detectLanguage };
  const sliceMs = options.sliceMs ?? SLICE_MS;
  // Files named by the caller are looked up (one statement): reading every row costs 3-50 ms on 2,000 files.
  // A walk compares with every row, read in pages between yields.
  const rows = pathsMode ? store.fileRowsOf(new Set(options.paths)) : await store.fileRowsSliced(sliceMs);
  const workers = options.workers ?? ctx.parseWorkers ?? defaultParseWorkers();
  // A full re-ingest of a large workspace parses in the pool: start its workers now, so their
  // start-up (parser modules, tree-sitter runtime) overlaps the walk instead of following it.
  if (!incremental && parser.parallel && workers > 0 && rows.size >= POOL_MIN_FILES) sharedParsePool(workers).warm();
  let entries: WalkEntry[];
  const removes = new Set<string>();
  let skipped: SkippedPath[] = [];
  const skippedByReason: Partial<Record<SkipReason, number>> = {};
  let config: ResolverConfig = ctx.builder.resolverConfig;
  const noteSkip = (path: string, reason: SkipReason): void => {
    skippedByReason[reason] = (skippedByReason[reason] ?? 0) + 1;
    if (reason !== 'unsupported') skipped.push({ path, reason });
  };
  if (pathsMode) {
    const check = await checkPathsAsync(walkOptions, [...new Set(options.paths)]);
    entries = check.files;
    for (const g of check.gone) {
      if (rows.has(g.path)) removes.add(g.path);
      if (g.reason !== 'deleted') noteSkip(g.path, g.reason);
    }
  } else {
    // Incremental runs skip probing for pruned directories: the full run reported them already.
    // Every walk records the tree's directories; an incremental one reuses that when none changed.
    const cache = walkCacheOf(store);
    if (!incremental) cache.clear();
    const walk = await walkWorkspaceAsync({ ...walkOptions, reportPruned: !incremental }, sliceMs, cache);
    entries = walk.files;
    skipped = walk.skipped;
    Object.assign(skippedByReason, walk.skippedByReason);
    const seen = new Set(entries.map((e) => e.path));
    for (const path of rows.keys()) if (!seen.has(path)) removes.add(path);
    config = readResolverConfig(root, walk.configFiles);
  }
  phases.walk = now() - t;
  progress(1, 1, 'walk');

  // 2. Git history, concurrently with parsing (git runs in its own process).
  const gitDir = findGitDir(root);
  const head = gitDir ? readGitHead(gitDir) : null;
  // History is re-read only when HEAD moved since the stored scan (or on a full ingest).
  const scanGit = gitDir !== null && ctx.gitMaxCommits > 0 && (!incremental || (head ?? '') !== (meta.gitHead ?? ''));
  const gitStarted = now();
  const gitPromise: Promise<GitCommit[]> | null = scanGit ? scanGitLog(root, { maxCommits: ctx.gitMaxCommits }) : null;

  // 3. Read, hash, parse what changed.
  const writes: FileWrite[] = [];
  const graphUpserts: FileInput[] = [];
  const texts = new Map<string, string>();
  let unchanged = 0;
  let reused = 0;
  const toRead: WalkEntry[] = [];
  for (const e of entries) {
    const row = rows.get(e.path);
    if (incremental && !parserChanged && row && row.size === e.size && row.mtimeMs === e.mtimeMs && row.language === e.language && ctx.builder.has(e.path)) {
      unchanged++;
      continue;
    }
    toRead.push(e);
  }
  const tasks: ParseTask[] = toRead.map((e) => {
    const row = rows.get(e.path);
    const same = incremental && row !== undefined && ctx.builder.has(e.path);
    return { path: e.path, language: e.language, size: e.size, mtimeMs: e.mtimeMs, sameKey: same ? row.extractionKey : null };
  });
  // Big runs commit from the worker: open a stream to it now (its start-up overlaps the parse) and
  // hand it rows as they come, dropping their JSON here.
  const offThreadCommit = tasks.length >= OFF_THREAD_COMMIT_FILES || removes.size >= OFF_THREAD_COMMIT_FILES * 4;
  const stream = offThreadCommit ? store.openCommitStream() : null;
  const batchFiles = Math.max(1, options.commitBatchFiles ?? COMMIT_BATCH_FILES);
  const handOver = (): void => {
    if (!stream || writes.length === 0) return;
    const next = writes.slice(stream.sent);
    stream.send(next);
    // The commit worker has the JSON now; the extraction (kept for the build) can re-make it if the worker dies.
    for (const w of next) delete w.json;
  };
  // A full build makes its graph while the parse runs: each parsed file's nodes are added as it
  // arrives (the main thread is mostly idle while the workers parse), so only the linking is left
  // after the parse. The new builder is swapped in only after the commit; a failure drops it.
  const fullBuild = !incremental || ctx.builder.graph.nodeCount === 0;
  const fresh = fullBuild ? ctx.newBuilder() : null;
  // Outcomes arrive in task order (a batch at a time from the pool).
  const take = (i: number, outcome: ParseOutcome): void => {
    const e = toRead[i];
    const row = rows.get(e.path);
    if (outcome.kind === 'skip') {
      noteSkip(e.path, outcome.reason);
      if (row) removes.add(e.path);
    } else if (outcome.kind === 'same') {
      // Touched but identical: remember the new size/mtime so the next run skips it without reading.
      writes.push({ row: { ...row!, size: e.size, mtimeMs: e.mtimeMs }, extraction: null });
      reused++;
    } else {
      const stored = store.hasExtraction(outcome.row.extractionKey);
      writes.push({ row: outcome.row, extraction: stored ? null : outcome.extraction, ...(outcome.json !== undefined && !stored ? { json: outcome.json } : {}) });
      // A big run hands the build a light copy (calls, references, doc links left out): the build
      // links each file from its stored extraction once the commit has it, so the run never holds
      // every full extraction at once (the full one is dropped as soon as the store has it staged).
      const input: FileInput = stream ? { path: e.path, language: e.language, extraction: lightExtraction(outcome.extraction), partial: true, key: outcome.row.extractionKey } : { path: e.path, language: e.language, extraction: outcome.extraction };
      graphUpserts.push(input);
      fresh?.stage([input]);
      if (ctx.keepText) ctx.keepText(e.path, outcome.text);
      else texts.set(e.path, outcome.text);
    }
    if (stream && writes.length - stream.sent >= batchFiles) handOver();
  };
  open.stream = stream;
  const parseWorkers = await parseTasks(ctx, tasks, workers, options, phases, (done) => progress(done, tasks.length, 'parse'), take);
  handOver();
  progress(toRead.length, toRead.length, 'parse');
  aborted(options.signal);

  // 4. Git facts.
  t = now();
  let commits: GitCommit[] | undefined;
  let facts: GitFacts | null | undefined;
  if (gitPromise) {
    progress(0, 1, 'git');
    commits = await gitPromise;
    facts = gitFactsFrom(commits);
    progress(1, 1, 'git');
  } else if (!gitDir && ctx.builder.gitFacts !== null) {
    facts = null; // no longer a repository
    commits = [];
  }
  phases.git = scanGit ? now() - gitStarted : now() - t;
  aborted(options.signal);

  // 5. Commit in one transaction (skipped when nothing changed), and 6. build (full) or patch
  // (incremental) the graph. A full run builds a new graph while the commit worker writes (the
  // graph is swapped in only after the commit succeeded); a patch waits for the commit.
  t = now();
  const configJson = JSON.stringify(config);
  const storeChanged = writes.length > 0 || removes.size > 0 || commits !== undefined || !incremental || configJson !== meta.resolverConfig;
  let committed: Promise<{ generation: number; previous: number }> = Promise.resolve({ generation: meta.generation, previous: meta.generation });
  if (storeChanged) {
    const write = {
      upserts: writes,
      removes: [...removes],
      gitCommits: commits,
      meta: { root, parserVersion: parser.version, gitHead: head, resolverConfig: configJson },
      onProgress: (done: number, total: number) => progress(done, total, 'persist'),
    };
    // A large write goes through the commit worker (SQLite writes off the main thread); an edit's few rows commit here at once.
    committed = offThreadCommit ? store.commitIngestAsync(write, sliceMs, stream ?? undefined) : Promise.resolve().then(() => store.commitIngest(write));
    committed = committed.then(
      (r) => {
        phases.persist = now() - t;
        return r;
      },
      (err: unknown) => {
        if ((err as { code?: string }).code === 'SQLITE_BUSY') {
          throw new EngineError(EngineErrorCodes.INGEST_BUSY, 'another process held the store too long; nothing was written', 'retry the ingest in a moment');
        }
        throw err;
      },
    );
    // Handled below (awaited after the build); marked now so a failure during the build is no unhandled rejection.
    committed.catch(() => undefined);
  }
  stream?.drop(); // a no-op once committed; else (nothing to write) the rows are forgotten
  if (!fullBuild) await committed;
  t = now();
  progress(0, 1, 'build');
  let builder = ctx.builder;
  let rebuilt = false;
  let relinked: number;
  if (fresh) {
    builder = fresh;
    rebuilt = true;
    try {
      relinked = (await builder.applyAsync({ upsert: graphUpserts, remove: [], git: facts ?? ctx.builder.gitFacts, config, release: true, linkAfter: committed }, sliceMs)).resolvedFiles;
    } finally {
      // A build error still waits for the commit, so no write is left running behind the failure.
      await committed.catch(() => undefined);
    }
  } else {
    // In place: a patch that fits in one slice (an edit's re-ingest) never yields, so nothing sees it half done.
    relinked = (await builder.applyAsync({ upsert: graphUpserts, remove: [...removes], ...(facts !== undefined ? { git: facts } : {}), config, release: true }, sliceMs)).resolvedFiles;
  }
  phases.build = now() - t;
  const { generation, previous: previousGeneration } = await committed;
  progress(1, 1, 'build');

  const summary = summarize(builder, {
    mode: pathsMode ? 'paths' : incremental ? 'incremental' : 'full',
    generation,
    scanned: entries.length,
    parsed: graphUpserts.length,
    reused,
    unchanged,
    removed: removes.size,
    skipped,
    skippedByReason,
    git: gitDir ? { scanned: scanGit, commits: commits?.length ?? store.gitCommitCount(), head } : null,
    relinked,
    parseWorkers,
    elapsedMs: now() - t0,
    phases,
  });
  return {
    builder,
    summary,
    texts,
    changed: graphUpserts.map((u) => u.path),
    removed: [...removes],
    rebuilt,
    rows: writes.map((w) => w.row),
    previousGeneration,
  };
}

/**
 * Reads and parses the tasks, in the parse workers when the parser can run there and the run is
 * large enough, else on the main thread (yielding between files), handing each outcome to `take`
 * in task order. When a worker dies mid-run, what was taken stays taken and the main thread parses
 * the rest. Returns the number of workers that parsed (0: the main thread did).
 */
async function parseTasks(
  ctx: IngestContext,
  tasks: ParseTask[],
  workers: number,
  options: IngestOptions,
  phases: IngestSummary['phases'],
  onDone: (done: number) => void,
  take: (i: number, outcome: ParseOutcome) => void,
): Promise<number> {
  let taken = 0;
  if (ctx.parser.parallel && workers > 0 && tasks.length >= POOL_MIN_FILES) {
    const t = now();
    // An error of `take` (the store, the run) is the run's; only the pool's own failures fall back.
    let takeError: { error: unknown } | null = null;
    try {
      const pool = sharedParsePool(workers);
      const cancelled = (): Error | null => {
        try {
          aborted(options.signal);
          return null;
        } catch (err) {
          return err as Error;
        }
      };
      const onBatch = (start: number, batch: ParseOutcome[]): void => {
        try {
          for (let j = 0; j < batch.length; j++) take(start + j, batch[j]);
          taken = start + batch.length;
        } catch (error) {
          takeError = { error };
          throw error;
        }
      };
      const pooled = await pool.parse(ctx.root, ctx.parser.version, tasks, { onDone, cancelled, onBatch });
      // Wall time of the pooled stage, split by the workers' own shares of reading and parsing.
      const wall = now() - t;
      const share = pooled.read + pooled.parse > 0 ? pooled.read / (pooled.read + pooled.parse) : 0;
      phases.read += wall * share;
      phases.parse += wall * (1 - share);
      aborted(options.signal);
      return pool.size;
    } catch (err) {
      if (takeError) throw (takeError as { error: unknown }).error;
      if (err instanceof EngineError) throw err;
      // A worker died (or could not start): the main thread parses what was not taken yet.
    }
  }
  const extractors = new Map<Language, FileExtractor>();
  let lastYield = now();
  for (let i = taken; i < tasks.length; i++) {
    if (now() - lastYield > (options.sliceMs ?? YIELD_EVERY_MS)) {
      await yieldToLoop();
      lastYield = now();
      aborted(options.signal);
    }
    if (i % 50 === 0) onDone(i);
    const task = tasks[i];
    let extract = extractors.get(task.language);
    if (!extract) {
      try {
        extractors.set(task.language, (extract = await ctx.parser.extractorFor(task.language)));
      } catch {
        take(i, { kind: 'skip', reason: 'parse_failed' });
        continue;
      }
    }
    take(i, parseFile(ctx.root, task, ctx.parser.version, extract, phases));
  }
  return 0;
}

interface SummaryInput {
  mode: IngestSummary['mode'];
  generation: number;
  scanned: number;
  parsed: number;
  reused: number;
  unchanged: number;
  removed: number;
  skipped: SkippedPath[];
  skippedByReason: Partial<Record<SkipReason, number>>;
  git: IngestSummary['git'];
  relinked: number;
  parseWorkers: number;
  elapsedMs: number;
  phases: IngestSummary['phases'];
}

function summarize(builder: GraphBuilder, s: SummaryInput): IngestSummary {
  const g = builder.graph;
  // Counted when read (the ingest verb's output), like the per-kind counts below: the count visits
  // every file's imports (~5-20 ms on 2,000 files), which a watcher's or the daemon's re-ingest never reads.
  const countImports = (): IngestSummary['imports'] => {
    const imports = { resolved: 0, unresolved: 0, external: 0, notFound: 0 };
    for (const path of builder.filePaths()) {
      for (const imp of builder.importsOf(path)) {
        if (imp.unresolved === undefined) imports.resolved++;
        else {
          imports.unresolved++;
          if (imp.unresolved === 'external') imports.external++;
          else imports.notFound++;
        }
      }
    }
    return imports;
  };
  let imports: IngestSummary['imports'] | undefined;
  const round = (x: number): number => Math.round(x * 10) / 10;
  // The per-kind and per-relation counts scan the whole graph (~10 ms on 70K nodes and 200K edges):
  // computed when read (the ingest verb's output), not for every watcher or edit re-ingest of a file.
  let byKind: IngestSummary['nodesByKind'] | undefined;
  let byRelation: IngestSummary['edgesByRelation'] | undefined;
  return {
    mode: s.mode,
    generation: s.generation,
    files: {
      scanned: s.scanned,
      parsed: s.parsed,
      reused: s.reused,
      unchanged: s.unchanged,
      removed: s.removed,
      skipped: Object.entries(s.skippedByReason).reduce((a, [k, v]) => a + (k === 'unsupported' ? 0 : v ?? 0), 0),
    },
    skipped: s.skipped.slice(0, MAX_SKIP_LIST),
    skippedTruncated: s.skipped.length > MAX_SKIP_LIST,
    skippedByReason: s.skippedByReason,
    nodes: g.nodeCount,
    get nodesByKind() {
      return (byKind ??= g.nodeCountsByKind());
    },
    edges: g.edgeCount,
    get edgesByRelation() {
      return (byRelation ??= g.edgeCountsByRelation());
    },
    get imports() {
      return (imports ??= countImports());
    },
    parseErrors: summarizeParseErrors(builder.parseErrorFiles()),
    git: s.git,
    relinkedFiles: s.relinked,
    parseWorkers: s.parseWorkers,
    elapsedMs: round(s.elapsedMs),
    phases: Object.fromEntries(Object.entries(s.phases).map(([k, v]) => [k, round(v)])) as IngestSummary['phases'],
  };
}
