/**
 * Alert writes a cycle could not make because the store was away (the team store's PostgreSQL
 * down: M1ND_ERR_STORE_UNAVAILABLE). A cycle acts on the graph before it raises — a deleted file
 * has left the graph by then, so no later poll finds it again — so an alert refused then would be
 * lost: it waits here instead (one entry per condition, the latest wins, bounded), with the paths
 * whose claims could not be re-checked, and the next cycle writes it first.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { Alert, AlertBook, AlertInput } from './alert-book.ts';

/** Conditions kept at most while the store is away (the oldest go first). */
const MAX_WAITING = 2000;
/** Paths whose claims wait for a re-check at most. */
const MAX_RECHECK = 10_000;

type Waiting = { op: 'raise'; input: AlertInput; at: number } | { op: 'resolve'; dedup: string; resolution: string; at: number };

/** What flushing wrote. */
export interface Flushed {
  opened: Alert[];
  resolved: Alert[];
}

/** Whether an error means the store could not be reached (the write may be made later). */
export function storeAway(error: unknown): boolean {
  return error instanceof M1ndError && error.code === ErrorCodes.STORE_UNAVAILABLE;
}

export class AlertOutbox {
  private readonly waiting = new Map<string, Waiting>();
  private readonly recheck = new Set<string>();
  /** Why the last write was kept (the store's error), while something waits. */
  reason: string | null = null;
  /** Conditions dropped because too many waited. */
  dropped = 0;

  constructor(private readonly alerts: AlertBook) {}

  /** Alert writes and claim re-checks waiting. */
  get size(): number {
    return this.waiting.size + this.recheck.size;
  }

  /** Raises now; when the store is away (or earlier writes still wait), keeps it for later and answers null. */
  async raise(input: AlertInput, now = Date.now()): Promise<{ alert: Alert; opened: boolean } | null> {
    if (this.waiting.size === 0) {
      try {
        return await this.alerts.raise(input, now);
      } catch (error) {
        if (!storeAway(error)) throw error;
        this.reason = (error as Error).message;
      }
    }
    this.keep(input.dedup, { op: 'raise', input, at: now });
    return null;
  }

  /** Resolves now (the open alert, or null when none was); when the store is away, keeps it for later and answers null. */
  async resolve(dedup: string, resolution: string, now = Date.now()): Promise<Alert | null> {
    if (this.waiting.size === 0) {
      try {
        return await this.alerts.resolve(dedup, resolution, now);
      } catch (error) {
        if (!storeAway(error)) throw error;
        this.reason = (error as Error).message;
      }
    }
    this.keep(dedup, { op: 'resolve', dedup, resolution, at: now });
    return null;
  }

  /** Open alerts of a kind about these paths (none while the store is away: a later cycle looks again). */
  async openAbout(kind: string, paths: ReadonlySet<string>): Promise<Alert[]> {
    try {
      return (await this.alerts.all('')).filter((a) => a.status === 'open' && a.kind === kind && a.path !== undefined && paths.has(a.path));
    } catch (error) {
      if (!storeAway(error)) throw error;
      return [];
    }
  }

  /** What waits, in words: alerts to raise, to resolve (if open), files whose claims to re-check. */
  describe(): string {
    let raises = 0;
    for (const w of this.waiting.values()) if (w.op === 'raise') raises++;
    const parts = [`${raises} alert(s) to raise`, `${this.waiting.size - raises} to resolve if open`];
    if (this.recheck.size > 0) parts.push(`the claims citing ${this.recheck.size} file(s) to re-check`);
    return parts.join(', ');
  }

  /** Keeps the paths whose claims could not be re-checked (the store was away). */
  recheckLater(paths: Iterable<string>, reason: string): void {
    this.reason = reason;
    for (const p of paths) if (this.recheck.size < MAX_RECHECK) this.recheck.add(p);
  }

  /** The paths waiting for a claim re-check (taken: the caller re-checks them now). */
  takeRecheck(): string[] {
    const out = [...this.recheck];
    this.recheck.clear();
    return out;
  }

  /** Writes what waits, oldest first; stops (keeping the rest) when the store is still away. */
  async flush(): Promise<Flushed> {
    const done: Flushed = { opened: [], resolved: [] };
    for (const [dedup, w] of this.waiting) {
      try {
        if (w.op === 'raise') {
          const r = await this.alerts.raise(w.input, w.at);
          if (r.opened) done.opened.push(r.alert);
        } else {
          const r = await this.alerts.resolve(w.dedup, w.resolution, w.at);
          if (r) done.resolved.push(r);
        }
      } catch (error) {
        if (!storeAway(error)) throw error;
        this.reason = (error as Error).message;
        return done;
      }
      this.waiting.delete(dedup);
    }
    if (this.size === 0) this.reason = null;
    return done;
  }

  private keep(dedup: string, w: Waiting): void {
    // The latest word on a condition wins, and goes to the end (after what it follows).
    this.waiting.delete(dedup);
    this.waiting.set(dedup, w);
    if (this.waiting.size > MAX_WAITING) {
      this.waiting.delete(this.waiting.keys().next().value!);
      this.dropped++;
    }
  }
}
