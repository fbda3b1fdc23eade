/**
 * Document auto-ingest: watchers over document roots for the chosen formats (the documents plugin's
 * converters), a bootstrap scan that queues every document the manifest does not know at its current
 * size and mtime, and cycles that drain the queue: a present document is converted to its canonical
 * Markdown (stored by the documents plugin) and its nodes and edges replaced: by an incremental ingest
 * of that path when the graph parses its format (Markdown), by the documents plugin's document and
 * section nodes otherwise (PDF, HTML, DOCX, reStructuredText, text); a deleted document's artefact
 * and graph nodes are pruned. The manifest (path → hash, size, mtime, last result) and the counters
 * persist in the local state store, so a restarted server resumes and rescans.
 */
import { lstat, stat } from 'node:fs/promises';
import { extname, join, posix } from 'node:path';
import { setImmediate as yieldNow } from 'node:timers/promises';
import fg from 'fast-glob';
import { ErrorCodes, M1ndError, type Logger } from '../../core/index.ts';
import { CONVERTERS, DOCUMENTS_NAMESPACE, MAX_GRAPH_DOCUMENTS, converterFor, documentNodes, forgetDocument, resolveDocument } from '../documents/api.ts';
import type { DocumentRecord } from '../documents/api.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateStore } from '../state/api.ts';
import { countFailures, retryAt, sameOnDisk } from './auto-ingest-failures.ts';
import { emptyState, type AutoIngestState, type AutoIngestTick, type ManifestEntry } from './auto-ingest-state.ts';
import { SLICE_MS, slicer } from './slices.ts';
import { TreeWatcher, watchCovers, type ChangeKind } from './tree-watcher.ts';
import { WatchedRunner, type RunnerDeps } from './watched-runner.ts';
import { neverWatched } from './never-watched.ts';

export const AUTO_INGEST_NAMESPACE = 'auto_ingest';
/** Documents queued or kept in the manifest at most. */
export const MAX_DOCUMENTS = 20_000;
const MANIFEST_PREFIX = 'm:';
/** Graph-parsed document formats (their nodes and edges come from the code graph's ingest). */
const GRAPH_FORMATS = new Set(['markdown']);
/** Manifest rows written per store transaction. */
const MANIFEST_CHUNK = 32;
/** Documents one background cycle converts. */
const BACKGROUND_BATCH = 16;

export class AutoIngest extends WatchedRunner<AutoIngestState> {
  /** Dropped events (queue full) no rescan has queued again yet: `auto_ingest_status` says so until one has. */
  private unrecovered = 0;

  constructor(private readonly deps: RunnerDeps) {
    super(deps, AUTO_INGEST_NAMESPACE, emptyState, 'auto-ingest');
  }

  /** The persisted state (counters a row saved by an older version lacks read as 0). */
  override async state(): Promise<AutoIngestState> {
    const s = await super.state();
    return { ...s, counters: { ...emptyState().counters, ...s.counters } };
  }

  /** Events the full queue dropped that no rescan has found again (counted or not yet). */
  get dropped(): number {
    return this.unrecovered + this.uncountedDropped;
  }

  /** Events dropped since the last scan or tick (not yet in the persisted `dropped` counter). */
  get uncountedDropped(): number {
    return this.carriedDropped + ((this.watcher ?? this.idleQueue)?.overflowed ?? 0);
  }

  /** Takes the dropped count (the queue's, and a closed watcher's) to add to the counter. */
  private takeDropped(queue: TreeWatcher): number {
    const n = this.carriedDropped + queue.overflowed;
    queue.overflowed = 0;
    this.carriedDropped = 0;
    return n;
  }

  /** Before the watcher (or the idle queue) is closed: what it dropped is counted by the next scan or tick. */
  private carryDropped(): void {
    for (const q of [this.watcher, this.idleQueue]) {
      if (!q) continue;
      this.carriedDropped += q.overflowed;
      q.overflowed = 0;
    }
  }
  private carriedDropped = 0;

  /** Manifest entries (bounded). */
  async manifest(limit = MAX_DOCUMENTS): Promise<ManifestEntry[]> {
    if (!this.deps.readable()) return [];
    return (await this.deps.store().list<ManifestEntry>(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX, limit)).map((r) => r.value);
  }

  /** Starts watchers over document roots (checked workspace paths), scans them and persists the state. */
  async start(agentId: string, roots: string[], formats: string[], debounceMs: number): Promise<{ state: AutoIngestState; queued: number }> {
    // Every root is checked before anything persists or starts: a refused call leaves no state behind.
    for (const r of roots) {
      const info = await stat(join(this.deps.graph.engine.root, r)).catch(() => null);
      if (!info) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `document root ${r || '.'} does not exist`, { hint: 'pass existing workspace folders in roots' });
      if (!info.isDirectory()) {
        const folder = posix.dirname(r) || '.';
        throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `document root ${r} is a file, not a folder`, { hint: `roots are folders: pass the folder holding it ("${folder}"); document_resolve {"path":"${r}"} converts this one document` });
      }
      // The scan and the watcher never look there: answering `active` for it would be a lie.
      if (await neverWatched(this.deps.graph.engine.root, r, true)) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `document root ${r} is never scanned: it is hidden, on the skip list (node_modules, vendor, dist, build, …) or ignored by .gitignore`, { hint: 'pass document folders the graph ingests (not ignored by .gitignore, not on the skip list)' });
      }
    }
    const state: AutoIngestState = { ...(await this.state()), active: true, roots, formats, debounce_ms: debounceMs, started_by: agentId, started_at: Date.now() };
    await this.row.save(state);
    await this.startWatcher(state);
    // The scan's queue drains once the watcher's debounce passes (or at auto_ingest_tick).
    const queued = await this.scan(state);
    return { state, queued };
  }

  /** Stops the watchers and persists the state as inactive (the manifest is kept). */
  stop(): Promise<AutoIngestState> {
    this.carryDropped();
    return this.deactivate();
  }

  /** At server start: an active auto-ingest watches again and rescans what changed while it was down. */
  async resume(): Promise<boolean> {
    const state = await this.rewatch();
    if (!state) return false;
    await this.scan(state);
    return true;
  }

  private extensions(formats: readonly string[]): Set<string> {
    return new Set(CONVERTERS.filter((c) => formats.includes(c.name)).flatMap((c) => c.extensions));
  }

  /** Queues the documents under the roots whose size or mtime differ from the manifest, and manifest entries whose file is gone. */
  async scan(state: AutoIngestState): Promise<number> {
    const watcher = this.watcher ?? this.queueOnly(state);
    const root = this.deps.graph.engine.root;
    const exts = [...this.extensions(state.formats)].map((e) => e.slice(1));
    if (exts.length === 0) return 0;
    watcher.refreshRules();
    const known = new Map((await this.manifest()).map((m) => [m.path, m]));
    // A document the manifest has but this server's graph lacks (converted before the first ingest, or
    // ingested by another server of the checkout) is queued while the documents plugin has room for it.
    const graph = this.deps.graph.engine.graph;
    let room = graph.nodeCount > 0 ? MAX_GRAPH_DOCUMENTS - documentNodes(this.deps.graph).size : 0;
    // The queue counts what it newly queues (a document still waiting is not queued again): first what
    // the watcher's events queued since the last count, then what this scan queues.
    const byEvents = watcher.takeAdded();
    // What the full queue dropped so far differs from the manifest, so this scan queues it again,
    // unless the queue overflows during the scan too (then that many are still missing).
    const droppedBefore = this.takeDropped(watcher);
    const now = Date.now();
    let scanned = 0;
    const seen = new Set<string>();
    for (const r of state.roots) {
      // A root that is no folder now (removed, or replaced by a file) holds no document: its manifest entries are queued as gone below.
      if (r && !(await stat(join(root, r)).catch(() => null))?.isDirectory()) continue;
      const pattern = `${r ? `${fg.escapePath(r)}/` : ''}**/*.{${exts.join(',')}}`;
      const entries = await fg(exts.length === 1 ? pattern.replace(/\{([^,}]*)\}$/, '$1') : pattern, { cwd: root, dot: false, onlyFiles: true, followSymbolicLinks: false, caseSensitiveMatch: false, ignore: ['**/node_modules/**', '**/.git/**', '**/.m1nd/**'] });
      for (let i = 0; i < entries.length; i++) {
        const path = entries[i];
        if (seen.has(path) || watcher.excluded(path)) continue;
        seen.add(path);
        scanned++;
        const info = await stat(join(root, path)).catch(() => null);
        const m = known.get(path);
        // A failed document unchanged on disk waits for its retry (backing off), not every scan.
        if (info && m && m.result === 'failed' && sameOnDisk(m, info) && now < retryAt(m)) continue;
        if (info && m && sameOnDisk(m, info) && m.result !== 'failed') {
          const missing = room > 0 && !graph.get(`file:${path}`) && !documentNodes(this.deps.graph).has(path);
          if (!missing) continue;
          room--;
        }
        watcher.push(path, 'change');
        if (i % 200 === 199) await yieldNow();
      }
    }
    // A manifest entry not listed now is gone, excluded, or out of these roots and formats (a new start):
    // the cycle tells which (pruned, or released) by looking at the file.
    for (const m of known.values()) if (!seen.has(m.path)) watcher.push(m.path, 'unlink');
    const byScan = watcher.takeAdded();
    const droppedByScan = this.takeDropped(watcher);
    this.unrecovered = droppedByScan;
    const latest = await this.state();
    const c = latest.counters;
    await this.row.save({ ...latest, counters: { ...c, scanned: c.scanned + scanned, queued: c.queued + byEvents + byScan, dropped: c.dropped + droppedBefore + droppedByScan } });
    return byScan;
  }

  /** Drains up to `maxDocs` queued documents now (after a rescan when `rescan`). */
  tick(maxDocs: number, rescan: boolean, signal?: AbortSignal): Promise<AutoIngestTick> {
    return this.serial(() => this.cycle(maxDocs, rescan, signal));
  }

  protected backgroundCycle(): Promise<AutoIngestTick> {
    return this.tick(BACKGROUND_BATCH, false);
  }

  /** A rescan (size and mtime against the manifest) and one batch of what it queued. */
  protected async reconcileCycle(): Promise<boolean> {
    const tick = await this.tick(BACKGROUND_BATCH, true);
    return tick.remaining > 0 && tick.processed > 0;
  }

  private async cycle(maxDocs: number, rescan: boolean, signal?: AbortSignal): Promise<AutoIngestTick> {
    const state = await this.state();
    if (state.roots.length === 0) {
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, 'auto-ingest was never started on this workspace', { hint: 'call auto_ingest_start({"agent_id":"…","roots":["docs"]}) first' });
    }
    const queue = this.watcher ?? this.queueOnly(state);
    if (rescan) await this.scan(state);
    const { graph } = this.deps;
    const store = this.deps.store();
    // A deletion already handled (found by a rescan before its event arrived) is no work.
    const batch: { path: string; kind: ChangeKind }[] = [];
    const taken = new Set<string>();
    const add = (e: { path: string; kind: ChangeKind }) => void (taken.has(e.path) || (taken.add(e.path), batch.push(e)));
    for (const e of queue.take(maxDocs)) {
      if (e.kind === 'unlink' && !graph.engine.graph.get(`file:${e.path}`) && !(await store.get(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX + e.path))) {
        // A folder deleted or moved away arrives as one event: it stands for the documents the manifest has under it.
        for (const r of await store.list(AUTO_INGEST_NAMESPACE, `${MANIFEST_PREFIX}${e.path}/`, MAX_DOCUMENTS)) add({ path: r.key.slice(MANIFEST_PREFIX.length), kind: 'unlink' });
        continue;
      }
      add(e);
    }
    const out: AutoIngestTick = { processed: batch.length, ingested: [], converted: [], unchanged: 0, pruned: [], released: [], failed: [], remaining: 0, generation: null };
    const forGraph: string[] = [];
    /** The records of the Markdown documents handed to the code ingest. */
    const records = new Map<string, DocumentRecord>();
    const results: ManifestEntry[] = [];
    /** The manifest entries before this tick, of the documents it converted (a failure's retry is no new failed document). */
    const before = new Map<string, ManifestEntry | undefined>();
    // Manifest rows of pruned documents, deleted with the new rows below (in small transactions).
    const gone: string[] = [];
    const slice = slicer();
    for (const [i, { path, kind }] of batch.entries()) {
      if (signal?.aborted) {
        // Cancelled: what this tick took and did not handle waits for the next one.
        for (const e of batch.slice(i)) queue.push(e.path, e.kind, false);
        out.processed -= batch.length - i;
        break;
      }
      // Between documents: a pruned one costs a few synchronous store writes and would not yield otherwise.
      await slice();
      const abs = join(graph.engine.root, path);
      const info = await stat(abs).catch(() => null);
      // A deletion event for a path that is a file again (re-created, or a manifest entry a new start left
      // out): what it is now decides. A symbolic link is never followed for it.
      const present = !!info?.isFile() && (kind === 'change' || !(await lstat(abs).catch(() => null))?.isSymbolicLink());
      const scope = present ? this.scopeOf(state, queue, path) : 'gone';
      if (scope === 'out') {
        // Released: no longer auto-ingested. A converted document's nodes leave the graph (nothing would keep
        // them current); a Markdown file stays, the code graph's own ingest keeps it.
        const dropped = await documentNodes(graph).drop(path);
        if (!dropped && !(await store.get(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX + path))) {
          out.processed--;
          continue;
        }
        gone.push(path);
        out.released.push(path);
        continue;
      }
      if (scope !== 'in') {
        // Gone: its canonical artefact, its manifest entry and (through the ingest) its graph nodes go.
        // A converted document's nodes are the documents plugin's; a Markdown file's leave by the ingest.
        const dropped = await documentNodes(graph).drop(path);
        const inGraph = !dropped && graph.engine.graph.get(`file:${path}`) !== null;
        const stored = graph.engine.storeExists() && graph.engine.memory.get(DOCUMENTS_NAMESPACE, path) !== undefined;
        if (!dropped && !inGraph && !stored && !(await store.get(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX + path))) {
          out.processed--; // pruned already: a watcher event that arrived after the tick that pruned it
          continue;
        }
        // Its artefact and baseline too, kept in memory and stored: drift no longer reads a deleted document.
        forgetDocument(graph, path);
        gone.push(path);
        if (inGraph) forGraph.push(path);
        out.pruned.push(path);
        continue;
      }
      const converter = converterFor(path);
      if (!converter || !info) continue;
      const previous = (await store.get<ManifestEntry>(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX + path))?.value;
      before.set(path, previous);
      try {
        const doc = await resolveDocument(graph, path);
        const inGraph = GRAPH_FORMATS.has(converter.name);
        // Converted formats enter the graph through the documents plugin (document + section nodes, bindings as edges).
        const graphed = !inGraph && graph.engine.graph.nodeCount > 0;
        // In the graph: its file node, or (a converted one) added and linked before the next call.
        const present = graph.engine.graph.get(`file:${path}`) !== null || documentNodes(graph).has(path);
        const same = previous && previous.hash === doc.record.source_hash && previous.result !== 'failed' && (!(inGraph || graphed) || present);
        if (same) out.unchanged++;
        else if (inGraph) {
          forGraph.push(path);
          records.set(path, doc.record);
        } else if (graphed) {
          await documentNodes(graph).put(doc.record);
          out.ingested.push(path);
        } else out.converted.push(path);
        results.push({ path, hash: doc.record.source_hash, size: info.size, mtimeMs: info.mtimeMs, converter: converter.name, result: same ? 'unchanged' : inGraph || graphed ? 'ingested' : 'converted', at: Date.now() });
      } catch (error) {
        const message = (error as Error).message;
        out.failed.push({ path, error: message });
        results.push({ path, hash: null, size: info.size, mtimeMs: info.mtimeMs, converter: converter.name, result: 'failed', error: message.slice(0, 300), at: Date.now() });
      }
    }
    if (forGraph.length && graph.writable && graph.engine.storeExists() && graph.engine.graph.nodeCount > 0) {
      try {
        out.generation = (await graph.engine.ingest({ paths: forGraph, signal, sliceMs: SLICE_MS })).generation;
        for (const p of forGraph) {
          const record = records.get(p);
          if (!record) continue; // pruned
          // A Markdown document the code ingest does not parse (an extension it does not read, such as .mdx)
          // enters the graph as the converted formats do, rather than being called ingested and left out.
          if (!graph.engine.graph.get(`file:${p}`)) await documentNodes(graph).put(record);
          out.ingested.push(p);
        }
      } catch (error) {
        for (const p of forGraph) out.failed.push({ path: p, error: (error as Error).message });
        for (const r of results) if (forGraph.includes(r.path)) Object.assign(r, { result: 'failed', error: (error as Error).message.slice(0, 300) });
      }
    } else {
      // No graph yet: the artefacts are stored; the first ingest brings the Markdown into the graph.
      out.converted.push(...forGraph.filter((p) => !out.pruned.includes(p)));
      for (const r of results) if (r.result === 'ingested' && forGraph.includes(r.path)) r.result = 'converted';
    }
    // Before the rows are written: a failure's attempts (its retry's backoff) go with them.
    const startedFailing = countFailures(results, before, (r) => r.path);
    // The manifest rows in small transactions with a yield between: a row per put was a commit each, and
    // awaiting a synchronous store's put yields nothing (a tick of 400 documents held the loop ~50 ms).
    const writes: (ManifestEntry | string)[] = [...gone, ...results];
    for (let i = 0; i < writes.length; i += MANIFEST_CHUNK) {
      const chunk = writes.slice(i, i + MANIFEST_CHUNK);
      await store.transaction(async (tx) => {
        for (const w of chunk) {
          if (typeof w === 'string') await tx.delete(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX + w);
          else await tx.put(AUTO_INGEST_NAMESPACE, MANIFEST_PREFIX + w.path, w);
        }
      });
      await slice();
    }
    out.remaining = queue.pending;
    const dropped = this.takeDropped(queue);
    this.unrecovered += dropped;
    const latest = await this.state();
    const c = latest.counters;
    await this.row.save({
      ...latest,
      last_tick_at: Date.now(),
      ticks: latest.ticks + 1,
      // Documents the watcher's events queued since the last count (a scan counts its own).
      counters: { ...c, queued: c.queued + queue.takeAdded(), ingested: c.ingested + out.ingested.length, converted: c.converted + out.converted.length, unchanged: c.unchanged + out.unchanged, pruned: c.pruned + out.pruned.length, failed: c.failed + startedFailing, dropped: c.dropped + dropped },
    });
    return out;
  }

  /** Documents queued (by watcher events) and not yet in the persisted `queued` counter: a scan or tick adds them. */
  get uncountedQueued(): number {
    return (this.watcher ?? this.idleQueue)?.addedSinceTaken ?? 0;
  }

  /** Whether a present document is auto-ingested: excluded (.gitignore, skip list; pruned), out of the roots or formats (released), or in. */
  private scopeOf(state: AutoIngestState, queue: TreeWatcher, path: string): 'in' | 'out' | 'excluded' {
    // A .gitignore written after the event was queued may leave the document out now.
    if (queue.excluded(path)) return 'excluded';
    return watchCovers(state.roots)(path) && this.extensions(state.formats).has(extname(path).toLowerCase()) ? 'in' : 'out';
  }

  /** A queue (no watcher) for ticks while auto-ingest is stopped. */
  private queueOnly(state: AutoIngestState): TreeWatcher {
    this.idleQueue ??= this.makeWatcher(state, false);
    return this.idleQueue;
  }
  private idleQueue: TreeWatcher | null = null;

  private makeWatcher(state: AutoIngestState, background: boolean): TreeWatcher {
    const exts = this.extensions(state.formats);
    return new TreeWatcher({
      root: this.deps.graph.engine.root,
      paths: state.roots,
      accept: (rel) => exts.has(extname(rel).toLowerCase()),
      debounceMs: state.debounce_ms,
      maxQueue: MAX_DOCUMENTS,
      onSettled: background ? () => void this.drainInBackground() : undefined,
    });
  }

  protected async startWatcher(state: AutoIngestState): Promise<void> {
    this.carryDropped();
    await this.closeWatcher();
    this.idleQueue = null;
    const epoch = this.epoch;
    const watcher = this.makeWatcher(state, true);
    await watcher.start();
    await this.adopt(watcher, epoch);
  }
}
