/**
 * A structure verb's time budget: the work checks `spent()` between units and yields to the event
 * loop every few milliseconds (`pace()`), so a long scan never holds the loop and stops, saying so,
 * when its time is up or the call is cancelled.
 */
import { Type } from '../../core/index.ts';

/**
 * Yield to the event loop after this long without one: 8 ms, as the ingest's slices (15 ms let a
 * first `scan_all` or `twins` hold the loop 50-90 ms at times, a slice plus one unit of work).
 */
const SLICE_MS = 8;

/** The `time_budget_ms` parameter every structure verb takes. */
export function timeBudgetParam(defaultMs: number) {
  return Type.Optional(Type.Integer({ minimum: 50, maximum: 120_000, default: defaultMs, description: 'Stop and report partial results after this many ms' }));
}

/** What a verb reports about its time budget. */
export interface DeadlineReport {
  elapsed_ms: number;
  time_budget_ms: number;
  stopped_early: boolean;
  /** What was left undone when stopped early. */
  skipped?: string;
}

export class Deadline {
  private readonly start = performance.now();
  private lastYield = this.start;
  private stopped = false;
  /** Progress for the client (a verb sets it to its call's `progress`): long facts work reports through it. */
  progress?: (done: number, total: number, message: string) => Promise<void>;

  constructor(
    readonly ms: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** True once the budget is spent or the call cancelled; from then on the run counts as stopped early. */
  spent(): boolean {
    if (!this.stopped && (performance.now() - this.start > this.ms || this.signal?.aborted)) this.stopped = true;
    return this.stopped;
  }

  /** Yields to the event loop when a slice has passed since the last yield. */
  async pace(): Promise<void> {
    const now = performance.now();
    if (now - this.lastYield < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lastYield = performance.now();
  }

  /** Milliseconds since the start. */
  elapsed(): number {
    return performance.now() - this.start;
  }

  /** The report verbs attach to their result. */
  report(skipped?: string): DeadlineReport {
    return { elapsed_ms: Math.round(this.elapsed()), time_budget_ms: this.ms, stopped_early: this.stopped, ...(this.stopped && skipped ? { skipped } : {}) };
  }
}
