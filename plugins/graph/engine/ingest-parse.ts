/**
 * The read-and-parse step of an ingest: in the parse workers when the parser can run there and the
 * run is large enough, else on the main thread in slices; outcomes go to the run in task order.
 */
import { EngineError, EngineErrorCodes } from './errors.ts';
import type { Language } from './extraction.ts';
import type { IngestContext, IngestOptions, IngestSummary } from './ingest-types.ts';
import { ExtensionRunner } from './parse-extensions.ts';
import { failureMessage, fromWire, parseFile, type ParseOutcome, type ParseTask, type WireOutcome } from './parse-pool/parse-file.ts';
import { sharedParsePool, sharedParsePoolStarted } from './parse-pool/pool.ts';
import { extractorBetweenRequests, type FileExtractor } from './source-parser.ts';
import { BACKGROUND_SLICE_MS, SliceClock } from './steps.ts';

/**
 * Main-thread work between two yields to the event loop (a slice may overrun by one file's step).
 * 8 ms: another session's request waits at most about this plus a GC pause (20 ms slices put the
 * main thread's p99 between two ping answers at 13–19 ms of CPU, 8 ms at 9–12 ms; same ingest CPU).
 */
export const SLICE_MS = 8;
/**
 * Fewer files than this parse on the main thread: a watcher's or an agent's re-ingest of a few
 * files is faster there than a round trip through the workers (or their start-up when idle).
 */
export const POOL_MIN_FILES = 48;

/**
 * A file at least this large parses in the workers even in a small run: the main thread parses
 * ~0.5 ms per KiB (the stdlib's 224 KiB `_pydecimal.py`: 120 ms), in one call no slice can split.
 */
export const MAIN_THREAD_MAX_BYTES = 64 * 1024;

const now = (): number => performance.now();

/**
 * Whether a run goes to the parse workers: a large run; a small one holding a file of
 * MAIN_THREAD_MAX_BYTES or more (one tree-sitter call no slice can split: a 938 KB one-line file
 * held the loop ~1 s), whatever the workers' start-up costs the caller; or a small one in a
 * language whose extractor the main thread does not hold yet (making one costs the main thread the
 * query's compile, 10–220 ms of CPU in slices; a server whose ingests parsed in the workers never
 * made one) when it is background work (a watcher's or the daemon's re-ingest, `sliceMs` ≤
 * BACKGROUND_SLICE_MS: nobody waits on it, so a worker's start-up costs nothing) or the workers are
 * running anyway. A caller's small re-ingest of small files (an edit) with the workers stopped
 * parses here: their start-up (0.2–0.9 s) would cost it more than the sliced compile, once per
 * language and process.
 */
function usePool(ctx: IngestContext, tasks: readonly ParseTask[], workers: number, sliceMs: number): boolean {
  if (!ctx.parser.parallel || workers <= 0 || tasks.length === 0) return false;
  if (tasks.length >= POOL_MIN_FILES || tasks.some((t) => t.size >= MAIN_THREAD_MAX_BYTES)) return true;
  const ready = ctx.parser.ready?.bind(ctx.parser);
  const compiles = ready !== undefined && tasks.some((t) => !ready(t.language));
  return compiles && (sliceMs <= BACKGROUND_SLICE_MS || sharedParsePoolStarted(workers, ctx.workerNice));
}

/** Throws the ingest's abort error when the run's signal fired. */
export function aborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError(EngineErrorCodes.INGEST_ABORTED, 'ingest aborted before commit; the previous graph is unchanged', 'run ingest again when ready');
}

/**
 * Reads and parses the tasks, in the parse workers when the parser can run there and the run is
 * large enough, else on the main thread (yielding between files), handing each outcome to `take`
 * in task order. When a worker dies mid-run, what was taken stays taken and the main thread parses
 * the rest. Returns the number of workers that parsed (0: the main thread did).
 */
export async function parseTasks(
  ctx: IngestContext,
  tasks: ParseTask[],
  workers: number,
  options: IngestOptions,
  phases: IngestSummary['phases'],
  onDone: (done: number) => void,
  take: (i: number, outcome: ParseOutcome) => void,
  /** Ask the workers for light copies (a streamed run's build reads only those before linking), and for texts (else outcomes carry ''). */
  ask: { light: boolean; text: boolean } = { light: false, text: true },
): Promise<number> {
  const { light, text } = ask;
  let taken = 0;
  // Parse extensions run on the default parsers' trees only (an injected parser makes none).
  const extensions = ctx.parser.parallel ? (ctx.extensions?.list() ?? []) : [];
  if (usePool(ctx, tasks, workers, options.sliceMs ?? SLICE_MS)) {
    const t = now();
    // An error of `take` (the store, the run) is the run's; only the pool's own failures fall back.
    let takeError: { error: unknown } | null = null;
    try {
      const pool = sharedParsePool(workers, ctx.workerNice);
      const cancelled = (): Error | null => {
        try {
          aborted(options.signal);
          return null;
        } catch (err) {
          return err as Error;
        }
      };
      // Outcomes are taken in slices of the main thread's budget, not as they arrive: the pool hands
      // out up to four batches at once when an earlier one came last (96 files' staging held the
      // loop 20 ms in a profile). The workers go on parsing between the slices.
      const pending: { start: number; batch: readonly WireOutcome[]; at: number }[] = [];
      const sliceMs = options.sliceMs ?? SLICE_MS;
      let draining = false;
      let drained: Promise<void> = Promise.resolve();
      const drain = async (): Promise<void> => {
        try {
          // A background run's drain shares the turn's budget with the other background slicers (it
          // starts in the poll phase, when a worker's batch arrives) and yields as they do (steps.ts).
          const clock = new SliceClock(sliceMs);
          for (let head = pending[0]; head; head = pending[0]) {
            while (head.at < head.batch.length) {
              if (clock.spent()) await clock.yield();
              take(head.start + head.at, fromWire(head.batch[head.at]));
              taken = head.start + ++head.at;
            }
            pending.shift();
          }
        } catch (error) {
          takeError = { error };
          pending.length = 0;
        } finally {
          draining = false; // in the turn the last outcome was taken: a batch after it starts a new drain
        }
      };
      const onBatch = (start: number, batch: readonly WireOutcome[]): void => {
        if (takeError) throw (takeError as { error: unknown }).error; // stops the pool's run
        pending.push({ start, batch, at: 0 });
        if (!draining) {
          draining = true;
          drained = drain();
        }
      };
      const pooled = await pool.parse(ctx.root, ctx.parser.version, tasks, { onDone, cancelled, onBatch, light, text, extensions }).finally(() => drained);
      if (takeError) throw (takeError as { error: unknown }).error;
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
  const runner = extensions.length > 0 && taken < tasks.length ? await ExtensionRunner.load(extensions) : null;
  const clock = new SliceClock(options.sliceMs ?? SLICE_MS);
  // A small run's extractor is made in slices (its matching is slower); a large one here (no workers,
  // or they died) takes the whole query: one compile that holds the loop, against ~3× the matching time per file.
  const small = tasks.length < POOL_MIN_FILES;
  for (let i = taken; i < tasks.length; i++) {
    if (clock.spent()) {
      await clock.yield();
      aborted(options.signal);
    }
    if (i % 50 === 0) onDone(i);
    const task = tasks[i];
    let extract = extractors.get(task.language);
    if (!extract) {
      try {
        const made = small ? extractorBetweenRequests(ctx.parser, task.language) : ctx.parser.extractorFor(task.language);
        extractors.set(task.language, (extract = await made));
      } catch (e) {
        take(i, { kind: 'skip', reason: 'parse_failed', error: failureMessage(e, task.language) });
        continue;
      }
    }
    take(i, parseFile(ctx.root, task, ctx.parser.version, extract, phases, runner));
  }
  return 0;
}
