/**
 * One ingest run: walk (or check the given paths), compare with the stored files (size + mtime,
 * then content hash), read and parse what changed, scan git history when HEAD moved, commit
 * everything in one store transaction, and build (full runs: a new graph whose nodes are made as the
 * parse delivers files) or patch the graph, swapping it in only after the commit. A failure or abort
 * before the commit leaves both the store and the in-memory graph as they were.
 */
import type { FileInput, GitFacts } from './build.ts';
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { FileExtraction } from './extraction.ts';
import { findGitDir, gitFactsFrom, readGitHead, scanGitLog } from './git-history.ts';
import { aborted, parseTasks, POOL_MIN_FILES, SLICE_MS } from './ingest-parse.ts';
import { summarize } from './ingest-summary.ts';
import type { IngestContext, IngestOptions, IngestOutcome } from './ingest-types.ts';
import type { ExtensionReport, ExtensionRow } from './parse-extensions.ts';
import type { ParseOutcome, ParseTask } from './parse-pool/parse-file.ts';
import { defaultParseWorkers, sharedParsePool } from './parse-pool/pool.ts';
import { readResolverConfig } from './resolver-config.ts';
import { SliceClock, slicePace } from './steps.ts';
import type { ResolverConfig } from './resolve.ts';
import type { FileWrite, GitCommit, GraphStore } from './store.ts';
import { lightExtraction } from './store-files.ts';
import { sharedCommitWorker, type CommitStream } from './store-writer/writer.ts';
import { checkPathsAsync, walkWorkspaceAsync, WalkCache, type SkipReason, type SkippedPath, type WalkEntry } from './walk.ts';

export { extractionKey } from './parse-pool/parse-file.ts';
export type { IngestContext, IngestOptions, IngestOutcome, IngestPhase, IngestSummary } from './ingest-types.ts';

/** Runs reading at least this many files commit through the store's commit worker (smaller commits take a few ms here). */
const OFF_THREAD_COMMIT_FILES = 48;
/** Rows handed to the commit worker at a time during the parse (see IngestOptions.commitBatchFiles). */
const COMMIT_BATCH_FILES = 64;
/** After committing this many files the commit worker stops at once (its memory goes to the build); it restarts on demand. */
const RELEASE_COMMIT_WORKER_FILES = 5000;

const now = (): number => performance.now();

/** Each store's walk cache: incremental runs re-list the tree only when a directory changed. */
const walkCaches = new WeakMap<GraphStore, WalkCache>();
export function walkCacheOf(store: GraphStore): WalkCache {
  let cache = walkCaches.get(store);
  if (!cache) walkCaches.set(store, (cache = new WalkCache()));
  return cache;
}

/**
 * What a full streamed run's link needs to start before the commit: a promise that every one of
 * the `rows` is staged (false when the stream broke first) and a loader that reads an extraction
 * from the store's tables, else from the stage (row `seqOf(path)` of the stream's run). A commit
 * moves rows from the stage to the tables in one transaction, so a lookup that misses both raced
 * with it, and the tables have the row: they are read once more.
 */
function linkFromStage(store: GraphStore, stream: CommitStream, rows: number, seqOf: ReadonlyMap<string, number>): { staged: Promise<boolean>; load: (path: string, key?: string) => FileExtraction | null } {
  return {
    staged: stream.whenStaged(rows),
    load: (path, key) => {
      if (key === undefined) return null;
      const seq = seqOf.get(path);
      return store.extraction(key, path) ?? (seq !== undefined ? store.stagedExtraction(stream.run, seq, path) : null) ?? store.extraction(key, path);
    },
  };
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
  if (!incremental && parser.parallel && workers > 0 && rows.size >= POOL_MIN_FILES) sharedParsePool(workers, ctx.workerNice).warm();
  let entries: WalkEntry[];
  const removes = new Set<string>();
  let skipped: SkippedPath[] = [];
  const skippedByReason: Partial<Record<SkipReason, number>> = {};
  let config: ResolverConfig = ctx.builder.resolverConfig;
  const noteSkip = (path: string, reason: SkipReason, error?: string): void => {
    skippedByReason[reason] = (skippedByReason[reason] ?? 0) + 1;
    if (reason !== 'unsupported') skipped.push(error === undefined ? { path, reason } : { path, reason, error });
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
    // Scoped (`within`): the rest of the tree is neither read nor removed. A graph still to be built takes everything.
    const within = incremental && ctx.builder.graph.nodeCount > 0 ? options.within : undefined;
    entries = within ? walk.files.filter((f) => within(f.path)) : walk.files;
    skipped = walk.skipped;
    Object.assign(skippedByReason, walk.skippedByReason);
    // 10,000 paths on each side: in slices too (~2-3 ms at once).
    const pace = slicePace(sliceMs);
    const seen = new Set<string>();
    for (let i = 0; i < entries.length; i++) {
      seen.add(entries[i].path);
      if ((i & 1023) === 1023) await pace();
    }
    let k = 0;
    for (const path of rows.keys()) {
      if (!seen.has(path) && (!within || within(path))) removes.add(path);
      if ((++k & 1023) === 0) await pace();
    }
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
  const extensionRows: ExtensionRow[] = [];
  const extensionReport: Record<string, ExtensionReport> = {};
  const graphUpserts: FileInput[] = [];
  const texts = new Map<string, string>();
  let unchanged = 0;
  let reused = 0;
  const toRead: WalkEntry[] = [];
  // Comparing every walked file with its row is ~7 ms on 10,000 files: in slices, like the walk.
  const clock = new SliceClock(sliceMs);
  for (let i = 0; i < entries.length; i++) {
    if ((i & 511) === 511 && clock.spent()) await clock.yield();
    const e = entries[i];
    const row = rows.get(e.path);
    if (incremental && !parserChanged && row && row.size === e.size && row.mtimeMs === e.mtimeMs && row.language === e.language && ctx.builder.has(e.path)) {
      unchanged++;
      continue;
    }
    toRead.push(e);
  }
  let taskBytes = 0;
  for (const e of toRead) taskBytes += e.size;
  // A full run's texts go to the search cache only when they all fit (see IngestContext.keepTextChars).
  const keepTexts = incremental || ctx.keepTextChars === undefined || taskBytes <= ctx.keepTextChars;
  const tasks: ParseTask[] = toRead.map((e) => {
    const row = rows.get(e.path);
    const same = incremental && row !== undefined && ctx.builder.has(e.path);
    return { path: e.path, language: e.language, size: e.size, mtimeMs: e.mtimeMs, sameKey: same ? row.extractionKey : null };
  });
  // Big runs commit from the worker: open a stream to it now (its start-up overlaps the parse) and
  // hand it rows as they come, dropping their JSON here.
  const offThreadCommit = tasks.length >= OFF_THREAD_COMMIT_FILES || removes.size >= OFF_THREAD_COMMIT_FILES * 4;
  // Starting the commit worker holds this thread ~5-7 ms (the Worker's set-up): in a turn of its own.
  if (offThreadCommit) await clock.yield();
  const stream = offThreadCommit ? store.openCommitStream() : null;
  if (offThreadCommit) await clock.yield();
  const batchFiles = Math.max(1, options.commitBatchFiles ?? COMMIT_BATCH_FILES);
  const handOver = (): void => {
    if (!stream || writes.length === 0) return;
    const next = writes.slice(stream.sent);
    stream.send(next);
    // The commit worker has the JSON now; the extraction can re-make it if the worker dies. A write
    // with no extraction object keeps its JSON until the worker staged it (the stream drops it then).
    for (const w of next) if (w.extraction) delete w.json;
  };
  // A full build makes its graph while the parse runs: each parsed file's nodes are added as it
  // arrives (the main thread is mostly idle while the workers parse), so only the linking is left
  // after the parse. The new builder is swapped in only after the commit; a failure drops it.
  const fullBuild = !incremental || ctx.builder.graph.nodeCount === 0;
  const fresh = fullBuild ? ctx.newBuilder() : null;
  // Each streamed file's row number in the write (its seq in the commit worker's stage run).
  const seqOf = new Map<string, number>();
  // Outcomes arrive in task order (a batch at a time from the pool).
  const take = (i: number, outcome: ParseOutcome): void => {
    const e = toRead[i];
    const row = rows.get(e.path);
    if (outcome.kind === 'skip') {
      noteSkip(e.path, outcome.reason, outcome.error);
      if (row) removes.add(e.path);
    } else if (outcome.kind === 'same') {
      // Touched but identical: remember the new size/mtime so the next run skips it without reading.
      writes.push({ row: { ...row!, size: e.size, mtimeMs: e.mtimeMs }, extraction: null });
      reused++;
    } else {
      const stored = store.hasExtraction(outcome.row.extractionKey);
      // A worker's outcome with a light copy keeps the whole extraction as JSON only (never parsed
      // here): the write holds that JSON until the commit worker staged it.
      const wholeAsJson = outcome.light !== undefined && outcome.json !== undefined;
      writes.push({ row: outcome.row, extraction: stored || wholeAsJson ? null : outcome.extraction, ...(outcome.json !== undefined && !stored ? { json: outcome.json } : {}) });
      if (stream) seqOf.set(e.path, writes.length - 1);
      // A big run hands the build a light copy (calls, references, doc links left out): the build
      // links each file from its stored extraction once the commit has it, so the run never holds
      // every full extraction at once (the full one is dropped as soon as the store has it staged).
      const input: FileInput = stream
        ? { path: e.path, language: e.language, extraction: outcome.light ?? lightExtraction(outcome.extraction), partial: true, key: outcome.row.extractionKey }
        : { path: e.path, language: e.language, extraction: outcome.extraction };
      graphUpserts.push(input);
      if (outcome.ext) ctx.extensions?.collect(extensionReport, e.path, outcome.row.hash, outcome.ext, extensionRows);
      fresh?.stage([input]);
      if (!keepTexts) {
        // Nothing kept (the workers sent no text).
      } else if (ctx.keepText) ctx.keepText(e.path, outcome.text);
      else texts.set(e.path, outcome.text);
    }
    if (stream && writes.length - stream.sent >= batchFiles) handOver();
  };
  open.stream = stream;
  const parseWorkers = await parseTasks(ctx, tasks, workers, options, phases, (done) => progress(done, tasks.length, 'parse'), take, { light: stream !== null, text: keepTexts });
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
      extensions: extensionRows,
      meta: { root, parserVersion: parser.version, gitHead: head, resolverConfig: configJson },
      onProgress: (done: number, total: number) => progress(done, total, 'persist'),
    };
    // A large write goes through the commit worker (SQLite writes off the main thread); an edit's few rows commit here at once.
    committed = offThreadCommit ? store.commitIngestAsync(write, sliceMs, stream ?? undefined) : Promise.resolve().then(() => store.commitIngest(write));
    committed = committed.then(
      (r) => {
        phases.persist = now() - t;
        if (offThreadCommit && writes.length >= (options.releaseCommitWorkerFiles ?? RELEASE_COMMIT_WORKER_FILES)) sharedCommitWorker().release();
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
    // A streamed run links from the rows the commit worker staged as soon as every row is staged,
    // while its commit transaction runs (the link reads the stage until the commit moves the rows to
    // the store's tables, then the tables); when the stream broke, after the commit.
    const early = stream && storeChanged ? linkFromStage(store, stream, writes.length, seqOf) : null;
    const linkAfter = early ? early.staged.then((ok) => (ok ? undefined : committed)) : committed;
    try {
      relinked = (await builder.applyAsync({ upsert: graphUpserts, remove: [], git: facts ?? ctx.builder.gitFacts, config, release: true, linkAfter, ...(early ? { loadExtraction: early.load } : {}) }, sliceMs)).resolvedFiles;
    } finally {
      // A build error still waits for the commit, so no write is left running behind the failure.
      await committed.catch(() => undefined);
    }
  } else {
    // In place: a patch that fits in one slice (an edit's re-ingest) never yields, so nothing sees it half done.
    ctx.beforePatch?.();
    relinked = (await builder.applyAsync({ upsert: graphUpserts, remove: [...removes], ...(facts !== undefined ? { git: facts } : {}), config, release: true }, sliceMs)).resolvedFiles;
  }
  phases.build = now() - t;
  const { generation, previous: previousGeneration } = await committed;
  if (storeChanged) ctx.extensions?.committed(extensionReport, extensionRows, [...removes]);
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
