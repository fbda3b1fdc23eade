/**
 * A pinger for "background work never holds the event loop for long" tests: pings the in-process
 * server every 2 ms and records the main-thread CPU each ping waited on (Linux schedstat; wall time
 * elsewhere), so a loaded machine that deschedules the thread does not count as the server's work.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import type { Harness } from './mcp.ts';

const schedstat = `/proc/self/task/${process.pid}/schedstat`;
/** Milliseconds the main thread spent on a CPU (Linux), else wall time. */
export const threadMs = existsSync(schedstat) ? (): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6 : (): number => performance.now();

/** Pings until `done()` says stop; the main-thread CPU (ms) between consecutive answers (and each span's wall start and end into `spans`). */
export async function pingWhile(h: Harness, done: () => boolean, spans?: [start: number, end: number][]): Promise<number[]> {
  const held: number[] = [];
  let cpu = threadMs();
  let wall = performance.now();
  while (!done()) {
    await new Promise((r) => setTimeout(r, 2));
    await h.client.ping();
    const now = threadMs();
    held.push(now - cpu);
    cpu = now;
    const end = performance.now();
    spans?.push([wall, end]);
    wall = end;
  }
  return held;
}

/** `pingWhile`, and for each held time the garbage-collection pauses inside it (as `pingDuringGc`). */
export async function pingWhileGc(h: Harness, done: () => boolean): Promise<{ held: number[]; gc: number[] }> {
  const pauses = gcPauses();
  const spans: [number, number][] = [];
  try {
    const held = await pingWhile(h, done, spans);
    return { held, gc: await pauses.within(spans) };
  } finally {
    pauses.stop();
  }
}

/**
 * Each held time less the collection pauses inside it: what the server's own code held. The test
 * process's whole heap (every earlier suite's garbage in a full run) is collected on this thread
 * too, in pauses no slice of the server can split.
 */
export function ownHeld(held: readonly number[], gc: readonly number[]): number[] {
  return held.map((ms, i) => ms - gc[i]);
}

/** Pings while `work` runs; its result and the held times. */
export async function pingDuring<T>(h: Harness, work: () => Promise<T>): Promise<{ result: T; held: number[] }> {
  const { result, held } = await pingDuringGc(h, work);
  return { result, held };
}

/**
 * `pingDuring`, and for each held time the V8 garbage-collection pauses inside it (ms, from the `gc`
 * performance entries): what the server's own code held is `held[i] - gc[i]`.
 */
export async function pingDuringGc<T>(h: Harness, work: () => Promise<T>): Promise<{ result: T; held: number[]; gc: number[] }> {
  const pauses = gcPauses();
  const spans: [number, number][] = [];
  let done = false;
  const pings = pingWhile(h, () => done, spans);
  try {
    const result = await work();
    const held = await ((done = true), pings);
    const gc = await pauses.within(spans);
    return { result, held, gc };
  } finally {
    done = true;
    pauses.stop();
    await pings.catch(() => undefined);
  }
}

/**
 * Records V8's garbage-collection pauses (the `gc` performance entries) from now on: `within` gives,
 * for each wall-time span (`performance.now()` ms), the pause time inside it, once the observer's last
 * batch is in, and stops recording; `stop` stops without reading.
 */
export function gcPauses(): { within(spans: readonly (readonly [number, number])[]): Promise<number[]>; stop(): void } {
  const pauses: [number, number][] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    async within(spans) {
      await new Promise((r) => setTimeout(r, 20)); // the observer's last batch
      observer.disconnect();
      return spans.map(([a, b]) => pauses.reduce((sum, [s, e]) => sum + Math.max(0, Math.min(b, e) - Math.max(a, s)), 0));
    },
    stop: () => observer.disconnect(),
  };
}

/** "N pings, worst X ms, p50 Y ms" for a message. */
export function describeHeld(held: readonly number[]): string {
  const sorted = [...held].sort((a, b) => a - b);
  return `${held.length} pings, worst ${(sorted.at(-1) ?? 0).toFixed(1)} ms, p50 ${(sorted[sorted.length >> 1] ?? 0).toFixed(1)} ms of main-thread work`;
}

/**
 * `files` TypeScript files in 40 folders (`pkg<i % 40>/m<i / 40>.ts`) that import each other: the
 * daemon bench's tree, for burst tests that rewrite many of them.
 */
export function writeImportTree(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = join(root, `pkg${i % 40}`);
    if (i < 40) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `m${Math.floor(i / 40)}.ts`), `import { f${(i + 1) % 40} } from './m${(Math.floor(i / 40) + 1) % 20}.ts';\nexport function f${i % 40}(x: number): number {\n  return x + ${i};\n}\n`);
  }
  writeFileSync(join(root, 'package.json'), '{"type":"module","private":true}\n');
}
