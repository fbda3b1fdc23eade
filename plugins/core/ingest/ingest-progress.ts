/**
 * One progress scale for a whole ingest. The engine reports each phase on its own count (parse
 * 666/666, then persist 1/661, …); MCP requires a request's progress to increase, so every phase
 * maps onto its slice of 0–100 and nothing that would not advance is sent.
 */
/** The engine's ingest phases, then the checker pass. */
type Phase = 'walk' | 'read' | 'parse' | 'git' | 'persist' | 'build' | 'type-check';

/** Each phase's slice of the scale, in order (roughly where the time goes on a mid-size repository). */
const SLICES: Record<Phase, readonly [number, number]> = {
  walk: [0, 3],
  read: [3, 8],
  parse: [8, 60],
  git: [60, 65],
  persist: [65, 80],
  build: [80, 88],
  'type-check': [88, 100],
};

/** Reports a phase's count; `finish` ends the scale at 100 (the phases run before it may stop short). */
export interface IngestProgress {
  /** `detail` replaces the phase's `done/total` in the message. */
  (done: number, total: number, phase: Phase, detail?: string): void;
  finish(message: string): void;
}

/** Sends `progress/100` with the phase and its own count in the message; never repeats or goes back. */
export function ingestProgress(send: (progress: number, total: number, message: string) => void, minIntervalMs = 100): IngestProgress {
  let last = -1;
  let lastAt = 0;
  const report = (done: number, total: number, phase: Phase, detail?: string): void => {
    const [from, to] = SLICES[phase];
    const fraction = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
    const progress = Math.round((from + (to - from) * fraction) * 10) / 10;
    const now = Date.now();
    // Throttled within a phase; a phase's end is always sent (when it advances).
    if (progress <= last || (now - lastAt < minIntervalMs && fraction < 1)) return;
    last = progress;
    lastAt = now;
    send(progress, 100, `${phase} ${detail ?? `${done}/${total}`}`);
  };
  // Without a type-check pass to wait for (no TS/JS, wait_precise false) the phases end at 88:
  // the last notification must still reach the total, or a client's bar never shows done.
  return Object.assign(report, {
    finish(message: string): void {
      if (last >= 100) return;
      last = 100;
      send(100, 100, message);
    },
  });
}
