/**
 * Runs the call pipeline's async hooks (gate, beforeCall, shapeResult) over their taps directly,
 * with tapable's semantics, instead of through tapable's `promise()`: that builds a promise and a
 * closure per tap on every call even when every tap is synchronous, which most are (the built-in
 * taps, and the plugins' callback taps that call back at once for a call that is not theirs).
 *
 * Synchronous taps run in a plain loop and the result comes back as a value; from the first tap
 * that is not synchronous or does not call back at once, the rest runs as a promise. A tap's throw
 * (or its callback's error, or its promise's rejection) ends the run, as in tapable. A hook with
 * interceptors goes through tapable (`promise()`), which calls them.
 */

/** What this runner reads of a tapable hook. */
interface TapList {
  taps: { type: string; fn: Function }[];
  interceptors: unknown[];
  promise(...args: unknown[]): Promise<unknown>;
}

const PENDING: unique symbol = Symbol('pending');

/**
 * The callback handed to callback taps, one per run of a hook (its taps run one after another):
 * a tap that calls back before returning leaves its outcome here; one that calls back later
 * settles the promise `call` returned for it.
 */
class Callback {
  settled = false;
  error: unknown = undefined;
  result: unknown = undefined;
  private later: { resolve(v: unknown): void; reject(e: unknown): void } | undefined = undefined;
  readonly done: (error?: unknown, result?: unknown) => void;

  constructor() {
    // Assigned here, not as a class field: a field's arrow gets a name, which tsx's keepNames
    // transform sets with a call per instance (one per hook run under `node --import tsx`).
    this.done = (error, result) => {
      const later = this.later;
      if (later) {
        this.later = undefined;
        if (error) later.reject(error);
        else later.resolve(result);
        return;
      }
      this.settled = true;
      this.error = error;
      this.result = result;
    };
  }

  /** Calls a callback tap: PENDING when it called back at once (outcome in `error`, `result`), else the promise of its result. */
  call(fn: Function, a: unknown, b: unknown, twoArgs: boolean): Promise<unknown> | typeof PENDING {
    this.settled = false;
    this.error = this.result = undefined;
    if (twoArgs) fn(a, b, this.done);
    else fn(a, this.done);
    if (this.settled) return PENDING;
    return new Promise((resolve, reject) => (this.later = { resolve, reject }));
  }
}

function promiseOf(fn: Function, a: unknown, b: unknown, twoArgs: boolean): Promise<unknown> {
  const p = twoArgs ? fn(a, b) : fn(a);
  if (!p || typeof p.then !== 'function') throw new Error(`Tap function (tapPromise) did not return promise (returned ${p})`);
  return p;
}

/** AsyncSeriesBailHook with one argument: the first tap result that is not undefined, else undefined. */
export function runBail<R>(hook: TapList, a: unknown): R | undefined | Promise<R | undefined> {
  if (hook.interceptors.length > 0) return hook.promise(a) as Promise<R | undefined>;
  const taps = hook.taps;
  let out: Callback | undefined;
  for (let i = 0; i < taps.length; i++) {
    const { type, fn } = taps[i];
    let result: unknown;
    if (type === 'sync') result = fn(a);
    else if (type === 'promise') return bailFrom<R>(taps, i + 1, a, promiseOf(fn, a, undefined, false), out);
    else {
      const p = (out ??= new Callback()).call(fn, a, undefined, false);
      if (p !== PENDING) return bailFrom<R>(taps, i + 1, a, p, out);
      if (out.error) throw out.error;
      result = out.result;
    }
    if (result !== undefined) return result as R;
  }
  return undefined;
}

async function bailFrom<R>(taps: TapList['taps'], from: number, a: unknown, waiting: Promise<unknown>, out = new Callback()): Promise<R | undefined> {
  const first = await waiting;
  if (first !== undefined) return first as R;
  for (let i = from; i < taps.length; i++) {
    const { type, fn } = taps[i];
    let result: unknown;
    if (type === 'sync') result = fn(a);
    else if (type === 'promise') result = await promiseOf(fn, a, undefined, false);
    else {
      const p = out.call(fn, a, undefined, false);
      if (p !== PENDING) result = await p;
      else if (out.error) throw out.error;
      else result = out.result;
    }
    if (result !== undefined) return result as R;
  }
  return undefined;
}

/** AsyncSeriesHook with one argument: every tap in order, results ignored. */
export function runSeries(hook: TapList, a: unknown): void | Promise<void> {
  if (hook.interceptors.length > 0) return hook.promise(a) as Promise<void>;
  const taps = hook.taps;
  let out: Callback | undefined;
  for (let i = 0; i < taps.length; i++) {
    const { type, fn } = taps[i];
    if (type === 'sync') fn(a);
    else if (type === 'promise') return seriesFrom(taps, i + 1, a, promiseOf(fn, a, undefined, false), out);
    else {
      const p = (out ??= new Callback()).call(fn, a, undefined, false);
      if (p !== PENDING) return seriesFrom(taps, i + 1, a, p, out);
      if (out.error) throw out.error;
    }
  }
}

async function seriesFrom(taps: TapList['taps'], from: number, a: unknown, waiting: Promise<unknown>, out = new Callback()): Promise<void> {
  await waiting;
  for (let i = from; i < taps.length; i++) {
    const { type, fn } = taps[i];
    if (type === 'sync') fn(a);
    else if (type === 'promise') await promiseOf(fn, a, undefined, false);
    else {
      const p = out.call(fn, a, undefined, false);
      if (p !== PENDING) await p;
      else if (out.error) throw out.error;
    }
  }
}

/** AsyncSeriesWaterfallHook with two arguments: each tap's result that is not undefined replaces the value. */
export function runWaterfall<T>(hook: TapList, value: T, b: unknown): T | Promise<T> {
  if (hook.interceptors.length > 0) return hook.promise(value, b) as Promise<T>;
  const taps = hook.taps;
  let out: Callback | undefined;
  for (let i = 0; i < taps.length; i++) {
    const { type, fn } = taps[i];
    let result: unknown;
    if (type === 'sync') result = fn(value, b);
    else if (type === 'promise') return waterfallFrom(taps, i + 1, value, b, promiseOf(fn, value, b, true), out);
    else {
      const p = (out ??= new Callback()).call(fn, value, b, true);
      if (p !== PENDING) return waterfallFrom(taps, i + 1, value, b, p, out);
      if (out.error) throw out.error;
      result = out.result;
    }
    if (result !== undefined) value = result as T;
  }
  return value;
}

async function waterfallFrom<T>(taps: TapList['taps'], from: number, value: T, b: unknown, waiting: Promise<unknown>, out = new Callback()): Promise<T> {
  const first = await waiting;
  if (first !== undefined) value = first as T;
  for (let i = from; i < taps.length; i++) {
    const { type, fn } = taps[i];
    let result: unknown;
    if (type === 'sync') result = fn(value, b);
    else if (type === 'promise') result = await promiseOf(fn, value, b, true);
    else {
      const p = out.call(fn, value, b, true);
      if (p !== PENDING) result = await p;
      else if (out.error) throw out.error;
      else result = out.result;
    }
    if (result !== undefined) value = result as T;
  }
  return value;
}
