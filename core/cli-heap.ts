/**
 * The heap setting of a long-running server. V8 doubles the young generation (the semi-spaces where
 * new objects are made) each time a scavenge sees most of it survive, up to 2 × 16 MB, and never
 * gives it back: a server that read every file once (the search cache, the seek index's build) keeps
 * ~32 MB of young generation committed and ~0.1 MB used. Its growth factor is read when it would grow,
 * so it can be set once the process runs (the semi-space maximum cannot: V8 sizes it at start-up,
 * and Node has no way to pass it from inside). With a factor of 1 the young generation stays at its
 * initial 2 × 1 MB: on the stdlib graph with its indexes, RSS 129–130 MB instead of 150–153 MB, with
 * the same ingest and seek CPU (docs/benchmarks.md, "Cold start, `m1nd call`, RSS, the tokenizer off
 * the main thread"). `M1ND_LEAN_HEAP=0` leaves V8's default.
 */
import { setFlagsFromString } from 'node:v8';

/** Process-wide (the bundle and dist/core/bundle-loader.js each have their own copy of this module). */
const LEAN = Symbol.for('m1nd.leanHeap');
const marks = globalThis as { [LEAN]?: boolean };

/** Stops the young generation's growth (see above) unless `M1ND_LEAN_HEAP=0`; true when applied. */
export function leanServerHeap(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.M1ND_LEAN_HEAP === '0') return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  marks[LEAN] = true;
  return true;
}

/**
 * Puts V8's default back (a factor of 2); true when the server's setting was on. V8 stamps a code cache with a hash of the flags that differ
 * from their defaults and rejects it in a process whose flags differ: the bundle's cache, written at
 * exit (core/bundle-loader.ts), must be made with the flags a fresh process loads it with.
 */
export function restoreDefaultHeap(): boolean {
  if (!marks[LEAN]) return false;
  setFlagsFromString('--semi-space-growth-factor=2');
  marks[LEAN] = false;
  return true;
}

/** Puts the server's setting back after `restoreDefaultHeap` returned true (a cache written while the server runs). */
export function reapplyLeanHeap(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  marks[LEAN] = true;
}
