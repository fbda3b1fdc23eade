/**
 * One side of the dispatch bench in a process of its own (`bare` or `m1nd`, argv[2]): a Client and
 * its server over InMemoryTransport, so each side's garbage is collected in its own heap. The parent
 * (bench/dispatch.bench.ts) sends `{ calls }` over IPC; the child makes that many calls and answers
 * with each call's wall time, its process CPU and its scavenges over the block.
 */
import fs from 'node:fs';
import v8, { GCProfiler } from 'node:v8';
import { bareClient, m1ndClient, timeCalls } from './dispatch-servers.ts';

export interface ChildBlock {
  times: number[];
  /** Process CPU (user + system, every thread: JIT and GC helpers too) over the block, µs. */
  cpuUs: number;
  /** The main thread's CPU over the block, µs (Linux /proc; NaN elsewhere). */
  mainUs: number;
  /** Minor (scavenge) collections over the block. */
  scavenges: number;
  /** Bytes allocated in the young generation over the block (objects too large for it are not counted). */
  youngBytes: number;
}

/** Bytes in use in the young generation's spaces. */
function youngOf(spaces: { spaceName: string; spaceUsedSize: number }[]): number {
  let used = 0;
  for (const s of spaces) if (s.spaceName === 'new_space') used += s.spaceUsedSize;
  return used;
}

/** This process's main-thread CPU so far, ns (the first field of its schedstat). */
function mainThreadNs(): number {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

function youngUsed(): number {
  let used = 0;
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_name === 'new_space') used += s.space_used_size;
  return used;
}

const kind = process.argv[2];
const client = kind === 'bare' ? await bareClient() : await m1ndClient();
process.on('message', async (msg: { calls?: number }) => {
  if (!msg.calls) {
    await client.close();
    process.exit(0);
  }
  const gc = new GCProfiler();
  const young0 = youngUsed();
  gc.start();
  const main0 = mainThreadNs();
  const cpu0 = process.cpuUsage();
  const times = await timeCalls(client, msg.calls);
  const cpu = process.cpuUsage(cpu0);
  const mainUs = (mainThreadNs() - main0) / 1000;
  const young1 = youngUsed();
  const stats = gc.stop().statistics;
  // Bytes allocated in the young generation: what each collection found there, less what the
  // previous one left, plus what has been allocated since the last one.
  let allocated = 0;
  let left = young0;
  for (const s of stats) {
    allocated += youngOf(s.beforeGC.heapSpaceStatistics) - left;
    left = youngOf(s.afterGC.heapSpaceStatistics);
  }
  allocated += young1 - left;
  const scavenges = stats.filter((s) => s.gcType === 'Scavenge').length;
  process.send!({ times, cpuUs: cpu.user + cpu.system, mainUs, scavenges, youngBytes: allocated } satisfies ChildBlock);
});
process.send!('ready');
