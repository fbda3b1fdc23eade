/**
 * Runs the package conversions (PDF, HTML, DOCX) in worker threads, so a big or hostile document
 * never holds the event loop other sessions need: each worker gets a bounded heap, each conversion a
 * time limit (its worker is terminated past it), and the Markdown a size limit. The workers start
 * from source through the TypeScript loader the host runs under (tsx), or from the built .js.
 *
 * Starting a worker (and loading a converter package in it) costs far more than converting a small
 * document, so the workers are kept while a batch converts: at most MAX_WORKERS, each taking one
 * document at a time, further documents waiting for a free one. A worker idle for `idleMs` is
 * stopped; an idle worker never keeps the process alive. A worker that failed, ran out of time or
 * heap, or whose conversion was cancelled is terminated, never reused.
 */
import { Worker } from 'node:worker_threads';
import { ErrorCodes, M1ndError } from '../../../core/index.ts';
import type { PackageFormat } from './formats.ts';
import type { ConvertJob, ConvertReply } from './worker.ts';

export interface ConversionLimits {
  /** Wall time a conversion may take. */
  timeoutMs: number;
  /** Old-generation heap of a worker. */
  maxHeapMb: number;
  /** Time an idle worker is kept for the next document. */
  idleMs: number;
}

export const DEFAULT_LIMITS: ConversionLimits = { timeoutMs: 60_000, maxHeapMb: 1024, idleMs: 5_000 };
/** Time a worker may take to start (before the conversion's own limit starts counting). */
const START_LIMIT_MS = 30_000;
/** Conversion workers at most (the machine's cores serve the sessions first). */
export const MAX_WORKERS = 2;

let limits: ConversionLimits = { ...DEFAULT_LIMITS };

/** Sets the limits (the documents plugin's options); idle workers (started under the old ones) are stopped. */
export function setConversionLimits(next: Partial<ConversionLimits>): void {
  limits = { ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined)) };
  for (const s of [...slots]) if (!s.busy) discard(s);
}

/** The limits in force. */
export function conversionLimits(): Readonly<ConversionLimits> {
  return limits;
}

type Reply = Exclude<ConvertReply, { ready: true }>;
type Outcome = { reply: Reply } | { failure: Error & { code?: string }; exitCode?: number };

/** One worker of the pool. */
interface Slot {
  worker: Worker;
  heapMb: number;
  /** Settles when the worker has loaded (its first message), or rejects when it exits first. */
  ready: Promise<void>;
  /** Receives the outcome of the conversion under way. */
  current: ((o: Outcome) => void) | null;
  busy: boolean;
  /** Conversions it finished. */
  done: number;
  error: (Error & { code?: string }) | null;
  idle: NodeJS.Timeout | null;
}

const slots: Slot[] = [];
/** Conversions waiting for a free worker. */
const waiting: ((slot: Slot) => void)[] = [];
const counters = { started: 0, conversions: 0, reused: 0 };

/** Workers running now and since the process started, and conversions done and how many reused a warm worker. */
export function conversionWorkers(): { running: number; busy: number; started: number; conversions: number; reused: number } {
  return { running: slots.length, busy: slots.filter((s) => s.busy).length, ...counters };
}

function spawn(heapMb: number): Worker {
  const fromSource = new URL(import.meta.url).pathname.endsWith('.ts'); // a host may add a ?query for hot reload
  const entry = new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url).href;
  const code = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`
    : `import(${JSON.stringify(entry)});`;
  return new Worker(code, { eval: true, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
}

function startSlot(): Slot {
  const heapMb = limits.maxHeapMb;
  const worker = spawn(heapMb);
  counters.started++;
  let loaded!: () => void;
  let failed!: (e: Error) => void;
  const slot: Slot = { worker, heapMb, ready: new Promise<void>((res, rej) => ((loaded = res), (failed = rej))), current: null, busy: true, done: 0, error: null, idle: null };
  slot.ready.catch(() => undefined); // the conversion waiting on it reports it
  worker.on('message', (m: ConvertReply) => ('ready' in m ? loaded() : slot.current?.({ reply: m })));
  worker.once('error', (error: Error & { code?: string }) => (slot.error = error));
  worker.once('exit', (code) => {
    const failure = slot.error ?? new Error(`the conversion worker exited (${code})`);
    failed(failure);
    slot.current?.({ failure, exitCode: code });
    discard(slot);
  });
  slots.push(slot);
  return slot;
}

/** A free worker for one conversion: an idle one, a new one while fewer than MAX_WORKERS run, else the next one freed. */
function acquire(): Promise<Slot> {
  const idle = slots.find((s) => !s.busy && s.heapMb === limits.maxHeapMb);
  if (idle) {
    if (idle.idle) clearTimeout(idle.idle);
    idle.idle = null;
    idle.busy = true;
    idle.worker.ref();
    return Promise.resolve(idle);
  }
  if (slots.length < MAX_WORKERS) return Promise.resolve(startSlot());
  return new Promise((resolve) => waiting.push(resolve));
}

/** Hands the worker to the next waiting conversion, or keeps it idle (unreferenced) for `idleMs`. */
function release(slot: Slot): void {
  slot.current = null;
  const next = waiting.shift();
  if (next && slot.heapMb === limits.maxHeapMb) return next(slot);
  if (next) {
    discard(slot);
    return;
  }
  slot.busy = false;
  slot.worker.unref();
  slot.idle = setTimeout(() => discard(slot), limits.idleMs);
  slot.idle.unref();
}

/** Stops a worker and takes it out of the pool; a waiting conversion gets a new one. */
function discard(slot: Slot): void {
  const at = slots.indexOf(slot);
  if (at < 0) return;
  slots.splice(at, 1);
  if (slot.idle) clearTimeout(slot.idle);
  slot.current = null;
  void slot.worker.terminate();
  const next = waiting.shift();
  if (next) next(startSlot());
}

/** Converts in a worker thread; PROVIDER_MISSING, or CONVERT_FAILED on an error, the time limit or the heap limit. */
export async function convertInWorker(format: PackageFormat, label: string, bytes: Uint8Array, signal?: AbortSignal): Promise<string> {
  const { timeoutMs, maxHeapMb } = limits;
  const slot = await acquire();
  const warm = slot.done > 0;
  const started = performance.now();
  let keep = false;
  let posted = false;
  try {
    const outcome = await new Promise<Outcome>((resolve, reject) => {
      let timer: NodeJS.Timeout | null = null;
      const overtime = (ms: number, what: string, hint: string) => () => reject(new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: ${what} took longer than ${ms} ms and was stopped`, { hint, data: { timeout_ms: ms } }));
      const abort = () => reject(new M1ndError(ErrorCodes.CALL_CANCELLED, `${label}: conversion cancelled`, { hint: 'call again to convert it' }));
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      const done = (o: Outcome) => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        resolve(o);
      };
      slot.current = done;
      // The time limit counts once the worker has loaded: starting a thread (and the TypeScript loader from source) is not the document's doing.
      if (!warm) timer = setTimeout(overtime(START_LIMIT_MS, 'starting the converter', 'the machine is overloaded; retry later'), START_LIMIT_MS);
      slot.ready.then(
        () => {
          if (slot.current !== done) return;
          if (timer) clearTimeout(timer);
          timer = setTimeout(overtime(timeoutMs, 'converting', 'split the document, convert it to Markdown yourself, or raise the documents plugin option convertTimeoutMs'), timeoutMs);
          posted = true;
          slot.worker.postMessage({ format, bytes } satisfies ConvertJob);
        },
        () => undefined, // the exit handler settles `done`
      );
    });
    if ('failure' in outcome) {
      const heap = outcome.failure.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (heap) throw new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: converting needed more than ${maxHeapMb} MB and was stopped`, { hint: 'split the document or convert it to Markdown yourself' });
      if (slot.error) throw new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: ${slot.error.message}`, { hint: 'check the file opens in its own application; a damaged or encrypted file cannot be converted' });
      throw new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: the conversion worker exited (${outcome.exitCode}) after ${Math.round(performance.now() - started)} ms`, { hint: 'retry; if it repeats, the document is too large or damaged' });
    }
    keep = true;
    slot.done++;
    counters.conversions++;
    if (warm) counters.reused++;
    const reply = outcome.reply;
    if (reply.ok) return reply.markdown;
    if (reply.missing) {
      throw new M1ndError(ErrorCodes.DOCUMENT_PROVIDER_MISSING, `${label} needs the npm package ${reply.missing}, which is not installed (${reply.message})`, {
        hint: `run "npm install ${reply.missing}" in the m1nd installation, then retry; document_provider_health lists every converter`,
        data: { package: reply.missing },
      });
    }
    throw new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: ${reply.message}`, { hint: 'check the file opens in its own application; a damaged or encrypted file cannot be converted' });
  } finally {
    // A worker is reused after a reply, or when the call was cancelled before it got the document.
    if (keep || (!posted && slot.done > 0 && slot.current !== null)) release(slot);
    else discard(slot);
  }
}
