/**
 * The main thread's side of the commit worker: serialises an ingest's extractions in slices that
 * yield to the event loop, streams them to the worker in chunks, and waits for the worker's one
 * transaction. The worker starts on first use (or when an ingest warms it early, so its start-up
 * overlaps the parse) and stops after a quiet half minute.
 */
import type { Worker } from 'node:worker_threads';
import { spawnEngineWorker } from '../engine-worker.ts';
import { extractionJson, type FileWrite, type IngestWrite, type SerializedFile } from '../store-commit.ts';
import type { CommitRequest, CommitResponse } from './protocol.ts';

const IDLE_MS = 30_000;
/** A chunk of rows is posted once its JSON reaches this many characters. */
const CHUNK_CHARS = 1 << 20;

/** An error of the worker's SQLite (its code kept, e.g. SQLITE_BUSY): nothing was written. */
export class CommitError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * An ingest's rows handed to the worker ahead of its commit, in order, so the main thread can drop
 * their JSON while the ingest still parses. The worker stages each chunk in the store and says so;
 * the rows of a staged chunk then drop their extraction and JSON (`FileWrite.staged`), so a big
 * ingest holds only the chunks in flight. `commit` with the stream sends only the rows after those
 * already sent. When the worker dies meanwhile, the stream is broken and the commit falls back to
 * the main thread's connection: staged rows come from the stage, the others from their data.
 */
export class CommitStream {
  /** Leading rows of the ingest's write already handed over. */
  sent = 0;
  /** Messages posted so far. */
  chunks = 0;
  broken = false;
  /** Set once the stream went to `commit` (a later `drop` does nothing). */
  finished = false;
  /** The stage run its rows go to (unique per process and stream). */
  readonly run: string;
  /** Characters of extraction JSON posted and not yet staged (the worker's queue and this heap hold them). */
  pendingChars = 0;
  /** The most `pendingChars` reached during the stream. */
  peakPendingChars = 0;
  /** Chunks posted and not yet staged, oldest first. */
  private readonly inFlight: { upTo: number; writes: readonly FileWrite[]; chars: number }[] = [];
  /** Leading rows the worker has staged (the stream's and those its commit posted). */
  stagedUpTo = 0;
  /** Callers of `whenStaged`: true once `upTo` rows are staged, false if the stream breaks first. */
  private stagedWaiters: { upTo: number; resolve: (staged: boolean) => void }[] = [];

  constructor(
    readonly id: number,
    readonly worker: Worker,
    /** The store the rows go to. */
    readonly dir: string,
    readonly busyTimeoutMs: number,
    private readonly closed: (s: CommitStream) => void,
  ) {
    this.run = runName(id);
  }

  /** Serialises and posts `writes` (the next rows of the ingest's write, in order). */
  send(writes: readonly FileWrite[]): void {
    if (this.broken || writes.length === 0) return;
    let chars = 0;
    const files = writes.map((w): SerializedFile => {
      const json = extractionJson(w);
      chars += json?.length ?? 0;
      return [w.row, json];
    });
    postFiles(this.worker, this.target(), this.sent, files);
    this.sent += writes.length;
    this.inFlight.push({ upTo: this.sent, writes, chars });
    this.chunks++;
    this.pendingChars += chars;
    if (this.pendingChars > this.peakPendingChars) this.peakPendingChars = this.pendingChars;
  }

  /** The worker staged the rows before `upTo`: they drop their data (the stage has it). */
  onStaged(upTo: number): void {
    if (upTo > this.stagedUpTo) this.stagedUpTo = upTo;
    if (this.stagedWaiters.length > 0) {
      const ready = this.stagedWaiters.filter((w) => w.upTo <= this.stagedUpTo);
      this.stagedWaiters = this.stagedWaiters.filter((w) => w.upTo > this.stagedUpTo);
      for (const w of ready) w.resolve(true);
    }
    while (this.inFlight.length > 0 && this.inFlight[0].upTo <= upTo) {
      const chunk = this.inFlight.shift()!;
      this.pendingChars -= chunk.chars;
      for (const w of chunk.writes) {
        w.staged = true;
        w.extraction = null;
        delete w.json;
      }
    }
  }

  /**
   * Resolves true once the worker has staged the first `upTo` rows (a reader of the store can then
   * find them with `GraphStore.stagedExtraction` until the commit moves them), or false when the
   * stream breaks or is dropped first (then only the commit's outcome says where they are).
   */
  whenStaged(upTo: number): Promise<boolean> {
    if (this.stagedUpTo >= upTo) return Promise.resolve(true);
    if (this.broken) return Promise.resolve(false);
    return new Promise((resolve) => this.stagedWaiters.push({ upTo, resolve }));
  }

  /** The worker stopped: rows not staged yet never will be. */
  markBroken(): void {
    this.broken = true;
    const waiters = this.stagedWaiters;
    this.stagedWaiters = [];
    for (const w of waiters) w.resolve(false);
  }

  /** Where this stream's rows go, for the worker. */
  target(): Target {
    return { id: this.id, run: this.run, dir: this.dir, busyTimeoutMs: this.busyTimeoutMs };
  }

  /** Tells the worker to forget the rows (the ingest stopped before its commit). */
  drop(): void {
    if (this.finished) return;
    this.finished = true;
    this.closed(this);
    if (this.broken) return;
    this.markBroken();
    this.worker.postMessage({ type: 'drop', ...this.target() } satisfies CommitRequest);
  }
}

interface Target {
  id: number;
  run: string;
  dir: string;
  busyTimeoutMs: number;
}

let runs = 0;
/** A stage run name no other process or stream of this one uses. */
function runName(id: number): string {
  return `${process.pid}-${Date.now().toString(36)}-${id}-${++runs}`;
}

function postFiles(worker: Worker, to: Target, seq: number, files: SerializedFile[]): void {
  worker.postMessage({ type: 'files', ...to, seq, files } satisfies CommitRequest);
}

interface Waiter {
  resolve: (r: { generation: number; previous: number }) => void;
  reject: (err: Error) => void;
}

/** One commit worker thread. */
export class CommitWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  /** `forget` calls waiting for the worker to close a store's connection. */
  private readonly closing = new Map<number, () => void>();
  private idle: NodeJS.Timeout | null = null;
  /** Streams opened on the current worker and not yet committed (broken if it dies). */
  private readonly streams = new Set<CommitStream>();

  /** Opens a stream of one ingest's rows to the store in `dir` (starting the worker if needed); finish it with `commit` or `drop`. */
  open(dir: string, busyTimeoutMs: number): CommitStream {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const stream = new CommitStream(this.nextId++, this.ensure(), dir, busyTimeoutMs, (s) => {
      this.streams.delete(s);
      if (this.streams.size === 0 && this.waiting.size === 0) this.scheduleIdle();
      else this.holdWhileBusy();
    });
    this.streams.add(stream);
    this.holdWhileBusy();
    return stream;
  }

  /** Starts the worker now if it is not running (its start-up then overlaps whatever the caller does next). */
  warm(): void {
    this.ensure();
    this.scheduleIdle();
  }

  /**
   * Commits `write` to the store in `dir` from the worker's connection. Extractions are serialised
   * here in slices of `sliceMs`. Rejects with CommitError when SQLite refused (nothing written), or
   * another Error when the worker died (nothing written either: the transaction is the last step).
   */
  async commit(dir: string, busyTimeoutMs: number, write: IngestWrite, sliceMs: number, stream?: CommitStream): Promise<{ generation: number; previous: number }> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (stream) {
      stream.finished = true;
      // The stream stays registered until the commit settles: the worker's acks of the last chunks
      // (which arrive before its commit result) still let their rows drop their data.
      if (stream.broken || stream.worker !== this.worker) {
        this.streams.delete(stream);
        throw new Error('the commit worker stopped while rows were streamed to it');
      }
    }
    const worker = this.ensure();
    const id = stream?.id ?? this.nextId++;
    const to: Target = stream?.target() ?? { id, run: runName(id), dir, busyTimeoutMs };
    let seq = stream?.sent ?? 0;
    const result = new Promise<{ generation: number; previous: number }>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.holdWhileBusy();
    result.catch(() => undefined); // observed below; a worker death before then must not surface as unhandled
    const total = write.upserts.length;
    let chunk: SerializedFile[] = [];
    let chars = 0;
    let sliceStart = performance.now();
    for (let i = stream?.sent ?? 0; i < total; i++) {
      const w = write.upserts[i];
      const json = extractionJson(w);
      chunk.push([w.row, json]);
      chars += json?.length ?? 0;
      if (chars >= CHUNK_CHARS) {
        postFiles(worker, to, seq, chunk);
        seq += chunk.length;
        chunk = [];
        chars = 0;
      }
      if ((i + 1) % 200 === 0) write.onProgress?.(i + 1, total);
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise<void>((r) => setImmediate(r));
        sliceStart = performance.now();
      }
    }
    if (chunk.length > 0) postFiles(worker, to, seq, chunk);
    // Every row is on its way (streamed rows included): say so before the transaction is asked for.
    if (total > 0 && total % 200 !== 0) write.onProgress?.(total, total);
    worker.postMessage({ type: 'commit', ...to, removes: write.removes, gitCommits: write.gitCommits, meta: write.meta, extensions: write.extensions } satisfies CommitRequest);
    try {
      return await result;
    } catch (err) {
      // The stage run whose rows a fallback commit on the main connection takes over.
      if (!(err instanceof CommitError)) throw Object.assign(err as Error, { stageRun: to.run });
      throw err;
    } finally {
      if (stream) this.streams.delete(stream);
      this.scheduleIdle();
    }
  }

  /**
   * Stops the worker now unless a stream or a commit is open (else it idles out as usual): after a
   * big ingest's commit its heap and SQLite cache are memory the graph build that follows needs.
   */
  release(): void {
    if (this.streams.size === 0 && this.waiting.size === 0) void this.stop();
  }

  /**
   * Resolves once the worker has closed its connection to the store in `dir` (after whatever was
   * sent to it before, such as a dropped stream's clean-up), so the process holds none of the
   * store's files afterwards. At once when no worker runs.
   */
  forget(dir: string): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    const id = this.nextId++;
    const done = new Promise<void>((resolve) => this.closing.set(id, resolve));
    this.holdWhileBusy();
    worker.postMessage({ type: 'close', id, dir } satisfies CommitRequest);
    return done;
  }

  /** Stops the worker (a commit in flight rejects). */
  async stop(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnEngineWorker(import.meta.url, './worker.ts');
    worker.on('message', (res: CommitResponse) => {
      if (res.type === 'staged') {
        for (const s of this.streams) if (s.id === res.id && s.worker === worker) s.onStaged(res.upTo);
        return;
      }
      if (res.type === 'closed') {
        this.closing.get(res.id)?.();
        this.closing.delete(res.id);
        this.holdWhileBusy();
        return;
      }
      const w = this.waiting.get(res.id);
      if (!w) return;
      this.waiting.delete(res.id);
      if (res.type === 'error') w.reject(new CommitError(res.message, res.code));
      else w.resolve({ generation: res.generation, previous: res.previous });
      this.holdWhileBusy();
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const s of this.streams) {
        if (s.worker !== worker) continue;
        s.markBroken();
        this.streams.delete(s);
      }
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.reject(err);
      }
      // A stopped worker holds no connection.
      for (const [id, resolve] of this.closing) {
        this.closing.delete(id);
        resolve();
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`commit worker exited (${code})`)));
    this.worker = worker;
    this.holdWhileBusy(); // after the 'message' listener, which references it again
    return worker;
  }

  /** References the worker while a stream, a commit or a close is open, so that the process waits for them; unreferences it otherwise. */
  private holdWhileBusy(): void {
    if (!this.worker) return;
    if (this.streams.size + this.waiting.size + this.closing.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private scheduleIdle(): void {
    this.holdWhileBusy();
    if (this.idle) clearTimeout(this.idle);
    // Never while an ingest streams rows to it (they would be lost; its commit would fall back).
    this.idle = setTimeout(() => (this.streams.size === 0 ? void this.stop() : this.scheduleIdle()), IDLE_MS);
    this.idle.unref();
  }
}

let shared: CommitWorker | null = null;

/** The process's commit worker. */
export function sharedCommitWorker(): CommitWorker {
  return (shared ??= new CommitWorker());
}
