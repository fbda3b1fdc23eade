/**
 * The engine's checker pass: decides which TS/JS files need (re-)checking, runs the checker worker
 * off the main thread, stores its results (keyed by file hash and program fingerprint) and swaps
 * them into the graph, where they replace the file's name-resolved calls. Stored results are reused
 * by a restarted server or another process without re-checking. After an edit, the changed files and
 * the files importing them are re-checked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GraphReadView } from '../graph-view.ts';
import type { FileRow, GraphStore, PreciseRow } from '../store.ts';
import { BACKGROUND_SLICE_MS, slicePace } from '../steps.ts';
import { detectLanguage } from '../parsers/languages.ts';
import { CheckerClient } from './checker-client.ts';
import { compilerCacheDir } from './compiler-cache.ts';
import { programFingerprint, programFingerprintAsync } from './fingerprint.ts';
import type { CheckProgress, CheckStats, PreciseEdge } from './protocol.ts';

/** Main-thread time a pass's results are serialized and stored for before the loop runs again (background work: the turn's budget). */
const PUT_SLICE_MS = BACKGROUND_SLICE_MS;
/** Checker results stored per transaction. */
const PUT_BATCH = 50;

/** Languages the checker covers. */
const CHECKED = new Set(['typescript', 'tsx', 'javascript']);

/** Files at a workspace's root that say it is a TS/JS project before any file is ingested. */
const PROJECT_FILES = ['tsconfig.json', 'jsconfig.json', 'package.json'];

/** What the pass needs from the engine. */
export interface PreciseHost {
  readonly root: string;
  /** False for a read-only engine: stored results are used, the checker never runs. */
  readonly canCheck: boolean;
  store(): GraphStore | null;
  /** The graph's read side (files, languages, which files have checker edges). */
  builder(): GraphReadView;
  /** Sets (null: clears) files' checker edges in the graph; `version` is the stored results' version after a put. */
  applyPrecise(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>, version?: number): void;
  /** `applyPrecise` in slices, yielding to the event loop between batches of files (call it in the engine's queue). */
  applyPreciseSliced(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>, version?: number): Promise<void>;
  /** Builds the graph builder's linking state if the graph was loaded without it (a snapshot load). */
  ensureBuilder(): Promise<void>;
  /** Runs `fn` in the engine's mutation queue. */
  serialized<T>(fn: () => T): Promise<T>;
}

/** How precise the graph's TS/JS calls are. */
export interface PreciseStatus {
  /** TS/JS files in the graph. */
  files: number;
  /** Files whose calls come from the checker. */
  precise: number;
  /** Files waiting for a checker pass. */
  pending: number;
  /** Files the checker could not check (no program owns them, or it threw); name-resolved. */
  failed: number;
  /** The last pass: files checked, time, programs, and the worker's memory after it. */
  lastPass: (CheckStats & { checked: number }) | null;
  running: boolean;
  /** Why the last pass failed as a whole (the worker could not start or crashed), if it did. */
  lastError?: string;
  /** While a pass runs: how far its check is (programs built, then files' edges collected), once the worker has said. */
  progress?: CheckProgress;
}

/** Past this many files, the stored checker results are read in one scan rather than looked up one by one. */
const LOOKUP_MAX = 256;

/** The stored checker results of these rows' files: looked up one by one for a few (an edit), one scan for many (a load). */
function storedPrecise(store: GraphStore, rows: readonly FileRow[]): Map<string, PreciseRow> {
  return rows.length <= LOOKUP_MAX ? store.preciseRowsOf(rows.map((r) => r.path)) : store.preciseRows();
}

/** The checker pass of one engine. */
export class PrecisePass {
  private readonly client: CheckerClient;
  private readonly dirty = new Set<string>();
  /** Files of the running pass, with the hash it checks: asking again for the same content is a no-op. */
  private inFlight = new Map<string, string>();
  private readonly failed = new Set<string>();
  private running: Promise<void> | null = null;
  private lastPass: PreciseStatus['lastPass'] = null;
  private closed = false;
  private lastError: string | undefined;
  /** The running check's progress, as the worker last reported it. */
  private progress: CheckProgress | undefined;
  /** The last counts of `status()`, with what they were counted on. */
  private counted: { builder: GraphReadView; graph: GraphReadView['graph']; version: number; files: number; precise: number; failed: number } | null = null;

  constructor(private readonly host: PreciseHost) {
    this.client = new CheckerClient(compilerCacheDir());
  }

  /**
   * The stored results that still hold (same file hash, same program fingerprint) for the TS/JS
   * files among `rows`, by path: a graph built from the store links them with these edges at once,
   * instead of linking every file twice (name-resolved, then again when `restore` applies them).
   */
  storedEdges(rows: Iterable<FileRow>, knownFingerprint?: string): Map<string, readonly PreciseEdge[]> {
    const out = new Map<string, readonly PreciseEdge[]>();
    const store = this.host.store();
    if (!store) return out;
    const checked = [...rows].filter((row) => CHECKED.has(row.language));
    if (checked.length === 0) return out;
    const stored = storedPrecise(store, checked);
    let fingerprint: string | null = knownFingerprint ?? null;
    for (const row of checked) {
      const s = stored.get(row.path);
      if (!s || s.hash !== row.hash) continue;
      // Globbing for configs costs a walk: only when some TS/JS file has a stored result to validate.
      fingerprint ??= programFingerprint(this.host.root);
      if (s.fingerprint === fingerprint) out.set(row.path, JSON.parse(s.edgesJson) as PreciseEdge[]);
    }
    return out;
  }

  /**
   * The program fingerprint, walked asynchronously, when some of `rows` is a TS/JS file with a
   * stored result to validate (else undefined: nothing needs it). A load computes it before its
   * synchronous steps (`storedEdges`, `restore`), which then take it instead of walking again.
   */
  async fingerprintFor(rows: Iterable<FileRow>): Promise<string | undefined> {
    const store = this.host.store();
    if (!store) return undefined;
    const checked = [...rows].filter((row) => CHECKED.has(row.language));
    if (checked.length === 0) return undefined;
    const stored = storedPrecise(store, checked);
    if (checked.some((row) => stored.has(row.path))) return programFingerprintAsync(this.host.root);
    return undefined;
  }

  /**
   * Applies stored results that still hold (same file hash, same fingerprint) to files of the graph
   * lacking checker edges (all, or `paths`), and schedules a check of the rest.
   */
  restore(paths?: Iterable<string>, knownFingerprint?: string, knownRows?: ReadonlyMap<string, FileRow>): void {
    const store = this.host.store();
    if (!store) return;
    const builder = this.host.builder();
    // An edit's paths are looked up (one statement): reading every row costs 20-50 ms on 2,000 files.
    const rows = knownRows ?? (paths ? store.fileRowsOf(paths) : store.fileRows());
    const lacking: FileRow[] = [];
    for (const path of paths ?? rows.keys()) {
      const row = rows.get(path);
      if (row && CHECKED.has(row.language) && !builder.isPrecise(path)) lacking.push(row);
    }
    if (lacking.length === 0) return;
    const apply = this.storedEdges(lacking, knownFingerprint);
    for (const row of lacking) if (!apply.has(row.path) && this.inFlight.get(row.path) !== row.hash) this.dirty.add(row.path);
    this.counted = null;
    this.host.applyPrecise(apply);
    this.schedule();
  }

  /**
   * After an ingest of `touched` files (re-read ones and removed ones): files whose content differs
   * from what the checker last saw, and the files importing them, are re-checked; the rest keep or
   * get back their stored results.
   */
  afterIngest(touched: readonly string[], rebuilt: boolean): void {
    const store = this.host.store();
    if (!store) return;
    const builder = this.host.builder();
    // A re-ingest of, say, Python files only has nothing for the checker (a removed file has no language left: its name says).
    const checked = (path: string) => {
      const language = builder.languageOf(path) ?? detectLanguage(path);
      return language !== null && CHECKED.has(language);
    };
    if (!rebuilt && !touched.some(checked)) return;
    // Only the touched files' rows are read (indexed lookups), never every stored row.
    const rows = store.fileRowsOf(touched);
    const stored = store.preciseRowsOf(touched);
    for (const path of touched) {
      const row = rows.get(path);
      // A full ingest re-reads every file: unchanged content keeps its stored result.
      if (row && (stored.get(path)?.hash === row.hash || !CHECKED.has(row.language))) continue;
      this.failed.delete(path);
      this.counted = null;
      if (row && this.inFlight.get(path) !== row.hash) this.dirty.add(path);
      for (const importer of builder.importersOf(path)) this.dirty.add(importer);
    }
    // A rebuilt graph starts without checker edges: stored ones of unchanged files still hold.
    this.restore(rebuilt ? undefined : touched, undefined, rebuilt ? undefined : rows);
  }

  /**
   * Called as an ingest starts: when the graph holds no checker results yet (a first ingest, or
   * stored results that no longer hold) and the workspace looks like a TS/JS project, the worker
   * starts and builds its programs from disk on another core while the engine parses, so the pass
   * that follows the ingest mostly queries the checker. A running worker already holds its programs.
   */
  warm(): void {
    if (!this.host.canCheck || this.closed) return;
    const builder = this.host.builder();
    let scripts = false;
    for (const path of builder.filePaths()) {
      const language = builder.languageOf(path);
      if (!language || !CHECKED.has(language)) continue;
      if (builder.isPrecise(path)) return;
      scripts = true;
    }
    if (!scripts && !PROJECT_FILES.some((name) => existsSync(join(this.host.root, name)))) return;
    // A failed warm-up costs nothing but time: the pass builds what it needs and reports its errors.
    this.client.warm(this.host.root).catch(() => undefined);
  }

  /** Resolves when no pass is running or queued. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Counts for ingest and health. */
  status(): PreciseStatus {
    const { files, precise, failed } = this.counts();
    const status: PreciseStatus = { files, precise, pending: files - precise - failed, failed, lastPass: this.lastPass, running: this.running !== null };
    if (this.lastError) status.lastError = this.lastError;
    if (this.running !== null && this.progress) status.progress = this.progress;
    return status;
  }

  /**
   * The checked files, those with checker edges and those that failed. Every query's stamp reads
   * them: counted once per graph version (a loop over every file, ~2 ms at 10,000) and kept until
   * the graph or this pass's results change.
   */
  private counts(): { files: number; precise: number; failed: number } {
    const builder = this.host.builder();
    const c = this.counted;
    if (c && c.builder === builder && c.graph === builder.graph && c.version === builder.graph.version && !builder.graph.needsFinalize) return c;
    let files = 0;
    let precise = 0;
    let failed = 0;
    for (const path of builder.filePaths()) {
      const language = builder.languageOf(path);
      if (!language || !CHECKED.has(language)) continue;
      files++;
      if (builder.isPrecise(path)) precise++;
      else if (this.failed.has(path)) failed++;
    }
    this.counted = { builder, graph: builder.graph, version: builder.graph.version, files, precise, failed };
    return this.counted;
  }

  /** Stops the worker; results still in flight are dropped. */
  async stop(): Promise<void> {
    this.closed = true;
    await this.client.stop();
  }

  private schedule(): void {
    if (this.running || this.dirty.size === 0 || !this.host.canCheck || this.closed) return;
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  private async loop(): Promise<void> {
    while (this.dirty.size > 0 && !this.closed) {
      const store = this.host.store();
      if (!store) return;
      const rows = store.fileRows();
      const files = [...rows.values()].filter((r) => CHECKED.has(r.language)).map((r) => ({ path: r.path, hash: r.hash }));
      const check = [...this.dirty].filter((p) => rows.has(p)).sort();
      this.dirty.clear();
      if (check.length === 0) continue;
      this.inFlight = new Map(check.map((p) => [p, rows.get(p)!.hash]));
      let result;
      try {
        this.progress = undefined;
        result = await this.client.run(this.host.root, files, check, (p) => (this.progress = p));
      } catch (err) {
        this.inFlight = new Map();
        this.lastError = err instanceof Error ? err.message : String(err);
        for (const p of check) this.failed.add(p);
        this.counted = null;
        continue;
      }
      this.inFlight = new Map();
      this.lastError = undefined;
      if (this.closed) return;
      await this.host.serialized(async () => {
        if (result.files.length > 0) await this.host.ensureBuilder();
        const now = this.host.store()?.fileRows();
        if (!now || this.closed) return;
        const put: PreciseRow[] = [];
        const apply = new Map<string, readonly PreciseEdge[]>();
        // Paced, and stored PUT_BATCH rows per transaction: 600 files' edges serialized and written in
        // one piece held the loop ~50 ms (the graph's relink after it is paced too).
        const pace = slicePace(PUT_SLICE_MS);
        for (const f of result.files) {
          await pace();
          // Checked text that is no longer the ingested one: the next ingest schedules it again.
          if (now.get(f.path)?.hash !== f.hash) continue;
          this.failed.delete(f.path);
          put.push({ path: f.path, hash: f.hash, fingerprint: result.fingerprint, edgesJson: JSON.stringify(f.edges) });
          apply.set(f.path, f.edges);
        }
        for (const p of result.failed) this.failed.add(p);
        let version = 0;
        for (let i = 0; i === 0 || i < put.length; i += PUT_BATCH) {
          await pace();
          const store = this.host.store();
          if (!store || this.closed) return;
          version = store.putPrecise(put.slice(i, i + PUT_BATCH));
        }
        this.counted = null;
        await this.host.applyPreciseSliced(apply, version);
        this.lastPass = { ...result.stats, checked: check.length };
      });
    }
  }
}

/** The status as verbs show it (snake_case). */
export function preciseReport(s: PreciseStatus) {
  return {
    files: s.files,
    precise: s.precise,
    pending: s.pending,
    failed: s.failed,
    running: s.running,
    ...(s.lastError ? { last_error: s.lastError } : {}),
    last_pass: s.lastPass && { checked: s.lastPass.checked, elapsed_ms: s.lastPass.elapsedMs, programs: s.lastPass.programs, worker_rss_mb: s.lastPass.rssMb, worker_heap_mb: s.lastPass.heapMb },
  };
}
