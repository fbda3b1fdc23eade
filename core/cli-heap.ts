/**
 * The young generation of a long-running server. V8 makes new objects in two semi-spaces and copies
 * the survivors of each scavenge from one to the other; it doubles them each time a scavenge sees
 * most of one survive, up to 2 × 16 MB, and never gives them back. A scavenge pauses the event loop
 * for as long as copying its survivors takes, so the semi-space's size bounds the longest pause: on
 * a 14K-node seek index build, single scavenges of 20–34 ms with 16 MB, ~14 ms with 4 MB.
 *
 * The semi-space maximum is fixed when V8 starts (`--max-semi-space-size`; `setFlagsFromString` of it
 * has no effect later, and Node has no way to pass it from inside the process). The growth factor
 * (`--semi-space-growth-factor`) is read each time the young generation would grow, so it can be set
 * while the process runs (set on the command line, V8 raises a factor under 2 back to 2; so does the
 * set-up of every new isolate, i.e. every worker's start, for the whole process). So:
 * - by default `serve`, once its host is up, sets the factor to 1 (from `dist/` the bundle's load has
 *   grown the young generation to 2 × 4 MB by then; from sources bin/m1nd.js holds it at 2 × 1 MB from
 *   its first line, or the TypeScript loader would grow it to 2 × 16 MB). The next worker's start (parse
 *   pool, tokenizer, checker) puts V8's default back;
 * - `M1ND_SEMI_SPACE_MB=<n>` (1, 2, 4, 8 or 16; 4 advised) grows it to n MB and holds it there across
 *   worker starts: a `gc` performance observer and each worker's `worker` and `online` events put the
 *   factor back to 1 once the size is reached, and workers begin with 16 MB semi-spaces
 *   (`WORKER_SEMI_SPACE_MB`) since under the held factor they could not grow. Not the default: on the
 *   daemon bench it doubled idle CPU (docs/benchmarks.md, branch `younggen`);
 * - `M1ND_LEAN_HEAP=0` keeps V8's default in the server too. `m1nd call`, `list` and library use keep it.
 *
 * V8 stamps a code cache with a hash of the flags that differ from their defaults and rejects a cache
 * made under other flags: the bundle's cache is compiled and written under V8's default factor
 * (`underDefaultHeapFlags`, core/bundle-loader.ts), so a server and `m1nd call` share one cache file.
 *
 * The state is process-wide through a global symbol: bin/m1nd.js, the bundle and
 * dist/core/bundle-loader.js each have their own copy of this module (bin/m1nd.js writes the state
 * by hand, without importing anything).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The semi-space size a server grows its young generation to, then holds (MB; 2 × this in all). */
export const SERVER_SEMI_SPACE_MB = 4;

/** V8's default growth factor. */
const DEFAULT_FACTOR = 2;

/** The process-wide state (see the file comment); bin/m1nd.js sets `factor: 1` on it for a server command. */
interface HeapState {
  /** The growth factor last set by m1nd (undefined: never set, V8's default). */
  factor?: number;
  /** The semi-space size the server holds (MB), once `leanServerHeap` applied it. */
  targetMb?: number;
  /** The semi-space size workers start with (MB), once `leanServerHeap` set it. */
  workerMb?: number;
}
const STATE = Symbol.for('m1nd.youngGeneration');
const slot = globalThis as { [STATE]?: HeapState };
const state = (): HeapState => (slot[STATE] ??= {});

function setFactor(factor: number): void {
  setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  state().factor = factor;
}

/** The young generation now: one semi-space's capacity and both semi-spaces' committed memory (MB). */
function newSpace(): { semiMb: number; committedMb: number } {
  const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  if (!s) return { semiMb: 0, committedMb: 0 };
  // Used + available is the semi-space's capacity less its pages' headers (1 MB reads 1,006 KB).
  return { semiMb: Math.round((s.space_used_size + s.space_available_size) / 2 ** 20), committedMb: Math.round((s.space_size / 2 ** 20) * 10) / 10 };
}

/** The semi-space size a server holds (MB) when `M1ND_SEMI_SPACE_MB` sets one (1, 2, 4, 8 or 16; SERVER_SEMI_SPACE_MB is the advised one), else null. */
export function serverSemiSpaceMb(env: NodeJS.ProcessEnv = process.env): number | null {
  if (env.M1ND_LEAN_HEAP === '0') return null;
  const mb = Number(env.M1ND_SEMI_SPACE_MB);
  // Sizes V8 reaches by doubling from 1 MB, up to its 16 MB maximum.
  return [1, 2, 4, 8, 16].includes(mb) ? mb : null;
}

/**
 * A worker's young generation from its start (MB), under a server's setting: V8 reads the growth
 * factor for every isolate, so a worker started while the server holds its own could not grow; it
 * starts at V8's maximum instead (`--min-semi-space-size`, read when an isolate is made; a worker's
 * `resourceLimits.maxYoungGenerationSizeMb` still caps it), the size a busy worker reaches by default.
 */
export const WORKER_SEMI_SPACE_MB = 16;

/**
 * Puts the factor that the server's policy wants now: V8's default while the young generation is
 * under its target, 1 once it is there. Run after every collection (a `gc` observer) and whenever a
 * worker starts: making an isolate resets a factor under 2 to 2 for the whole process (V8's heap
 * set-up does), so a worker's start would let the server's young generation grow again.
 */
function enforce(): void {
  const s = state();
  if (s.targetMb === undefined) return;
  const want = newSpace().semiMb >= s.targetMb ? 1 : DEFAULT_FACTOR;
  // Set even when unchanged: a worker's start may have reset it behind this state's back.
  setFactor(want);
}

/** Set once per process (the observer and the worker hook outlive a changed setting, which `enforce` reads). */
let watching = false;

/**
 * The server's young generation (called by `serve` once the host is up): grows it to
 * `serverSemiSpaceMb`'s size and holds it there; with `M1ND_LEAN_HEAP=0`, V8's default. True when
 * the server's setting applies.
 */
export function leanServerHeap(env: NodeJS.ProcessEnv = process.env): boolean {
  const target = serverSemiSpaceMb(env);
  const s = state();
  if (env.M1ND_LEAN_HEAP === '0') {
    s.targetMb = undefined;
    if (s.factor !== undefined && s.factor !== DEFAULT_FACTOR) setFactor(DEFAULT_FACTOR);
    return false;
  }
  // Workers without V8's memory reducer. V8 reads the flag when an isolate's heap is set up, so this
  // server's own heap keeps its reducer; the workers started from now on have none. A reducer runs major
  // collections ~8 s after its isolate goes quiet: in the server's idle workers (parse pool, store writer,
  // facts pool, all stopped after 30 s idle) that was all of a daemon's idle CPU, 50–160 ms per 10 s
  // (docs/benchmarks.md, branch `idle19`). The flag is not part of V8's code-cache flag hash.
  setFlagsFromString('--no-memory-reducer');
  if (target === null) {
    // The default: growth stopped once, here; the next worker's start puts V8's default back (see the file comment).
    s.targetMb = undefined;
    setFactor(1);
    return true;
  }
  s.targetMb = target;
  setFlagsFromString(`--min-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
  s.workerMb = WORKER_SEMI_SPACE_MB;
  enforce();
  if (!watching) {
    watching = true;
    // The observer runs on a later turn than the collection it reports: a turn that keeps more than
    // the new size alive can double it once more before the factor is back to 1 (health reports the size reached).
    new PerformanceObserver(enforce).observe({ entryTypes: ['gc'] });
    // The new isolate is set up on the worker's thread, before its 'online' event reaches this one: in between,
    // a scavenge of this thread that decides to grow doubles it once (health then reports more than the target).
    process.on('worker', (worker) => {
      enforce();
      worker.once('online', enforce);
    });
  }
  return true;
}

/** What `health` reports of the young generation: the policy, its target and the size now. */
export interface YoungGeneration {
  /**
   * `held`: grown to `target_mb` and held there, across worker starts (`M1ND_SEMI_SPACE_MB`); `lean`: growth
   * stopped when the server started, until a worker's start (the default); `default`: V8's own.
   */
  policy: 'held' | 'lean' | 'default';
  /** The semi-space size held (MB), null unless `held`. */
  target_mb: number | null;
  /** One semi-space's capacity now (MB). */
  semi_space_mb: number;
  /** Both semi-spaces' committed memory now (MB; one until the first scavenge). */
  committed_mb: number;
}

/** The young generation's policy and size now (see `YoungGeneration`). */
export function youngGeneration(): YoungGeneration {
  const s = state();
  const { semiMb, committedMb } = newSpace();
  const policy = s.targetMb !== undefined ? 'held' : s.factor === 1 ? 'lean' : 'default';
  return { policy, target_mb: s.targetMb ?? null, semi_space_mb: semiMb, committed_mb: committedMb };
}

/**
 * Runs `work` under V8's default growth factor, then puts back the factor m1nd had set: a code
 * cache compiled or made while the server's factor is set would carry a flag hash that a process
 * with V8's defaults rejects (see the file comment).
 */
export function underDefaultHeapFlags<T>(work: () => T): T {
  const { factor, workerMb } = state();
  const lean = factor !== undefined && factor !== DEFAULT_FACTOR;
  if (!lean && workerMb === undefined) return work();
  if (lean) setFactor(DEFAULT_FACTOR);
  if (workerMb !== undefined) setFlagsFromString('--min-semi-space-size=0');
  try {
    return work();
  } finally {
    if (workerMb !== undefined) setFlagsFromString(`--min-semi-space-size=${workerMb}`);
    if (lean) setFactor(factor);
  }
}
