/**
 * CPU time of the calling thread (Node 20 has no `process.threadCpuUsage`; `process.cpuUsage` is the
 * whole process's, main thread included). Read from Linux's /proc/thread-self/stat, in clock ticks
 * of 10 ms; null where that file does not exist. The checker worker reports its phases with it: on
 * a shared machine the wall time of a phase mostly measures the wait for a core.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc times (USER_HZ, 100 on every Linux architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds of this thread so far, or null when unknown. */
export function threadCpuMs(): number | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces, so split after its closing paren):
  // state is field 3; utime and stime are fields 14 and 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}
