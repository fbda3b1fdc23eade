/**
 * Writes the files of a git tree into a directory, for a ref snapshot to ingest: the tree is listed
 * (`git ls-tree -r -z --long`), and the blobs a snapshot can use (regular files no larger than the
 * engine reads) are read through one `git cat-file --batch`. Unlike `git archive | tar`, an object
 * git cannot read (a partial clone's absent blob, a damaged pack) costs that one file, not the
 * snapshot, and large binaries (images, archives) are never read at all. Symbolic links and
 * submodules are left out (a link could point outside the tree; a submodule's files are another
 * repository's).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { slicePace } from '../graph/api.ts';
import { runGit } from './git.ts';

interface Entry {
  oid: string;
  /** NaN when git cannot read the object (ls-tree prints "BAD" for its size). */
  size: number;
  path: string;
}

/** Regular files, executable or not (links are 120000, submodules 160000). */
const REGULAR = new Set(['100644', '100755']);

/** Main-thread time the tree listing's records are read for before the loop runs again. */
const LIST_SLICE_MS = 4;

/** The regular files of `treeish` inside it, with their sizes (the tree listing itself is bounded; read in slices). */
async function listTree(root: string, treeish: string, signal?: AbortSignal): Promise<Entry[]> {
  const res = await runGit(root, ['ls-tree', '-r', '-z', '--long', '--full-tree', treeish], { maxBytes: 256 * 1024 * 1024, timeoutMs: 120_000, signal });
  if (res.code !== 0) throw new Error(`git ls-tree ${treeish.slice(0, 40)} failed: ${res.stderr.trim().slice(0, 300)}`);
  const entries: Entry[] = [];
  const records = res.stdout.split('\0');
  // Paced by time: 4,096 records between yields, then a second pass over them (the path check),
  // held the loop ~60 ms on a tree of 4,000 small files.
  const pace = slicePace(LIST_SLICE_MS);
  for (let i = 0; i < records.length; i++) {
    if ((i & 255) === 255) await pace();
    const record = records[i];
    // "<mode> <type> <object> <size padded>\t<path>"
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
    const path = record.slice(tab + 1);
    if (type !== 'blob' || !REGULAR.has(mode) || !isInside(path)) continue;
    entries.push({ oid, size: Number(size), path });
  }
  return entries;
}

/**
 * Exports `treeish` into `dir`: files up to `maxFileBytes` each, `maxTotalBytes` in all (refused
 * before anything is read when the tree's files add up to more). Returns the paths whose objects git
 * could not read (left out).
 */
export async function exportTree(root: string, treeish: string, dir: string, limits: { maxFileBytes: number; maxTotalBytes: number }, signal?: AbortSignal): Promise<string[]> {
  const all = await listTree(root, treeish, signal);
  const unreadable = all.filter((e) => Number.isNaN(e.size)).map((e) => e.path);
  const wanted = all.filter((e) => e.size <= limits.maxFileBytes);
  const total = wanted.reduce((n, e) => n + e.size, 0);
  if (total > limits.maxTotalBytes) {
    throw new M1ndError(ErrorCodes.CALL_INPUT_TOO_LARGE, `the tree at ${treeish.slice(0, 12)} holds ${Math.round(total / 2 ** 20)} MiB of files under ${Math.round(limits.maxFileBytes / 1024)} KiB each, over ${limits.maxTotalBytes >> 20} MiB`, {
      hint: 'compare checkpoints instead, or narrow the workspace',
    });
  }
  if (wanted.length === 0) return unreadable;
  const made = new Set<string>();
  await readBlobs(root, wanted, signal, (entry, content) => {
    if (content === null) {
      unreadable.push(entry.path);
      return;
    }
    const file = join(dir, entry.path);
    const folder = dirname(file);
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(file, content);
  });
  return unreadable;
}

/** A tree path that stays inside the export directory (git never lists `..`, but the check is cheap). */
function isInside(path: string): boolean {
  const n = normalize(path);
  return !n.startsWith(`..${sep}`) && n !== '..' && !n.startsWith(sep);
}

/**
 * Main-thread time the blobs' handling (parsing the batch output, writing the files) takes before it
 * pauses git's output and yields: one 64 KiB chunk holds hundreds of small files, whose writes took
 * 150 ms in one turn (300 files).
 */
const BLOB_SLICE_MS = 4;

/**
 * Streams the entries' blobs through `git cat-file --batch`, in order; `content` null for an object
 * git could not read. The output is handled in slices of BLOB_SLICE_MS, git's pipe paused between.
 */
function readBlobs(root: string, entries: readonly Entry[], signal: AbortSignal | undefined, onBlob: (entry: Entry, content: Buffer | null) => void): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    // Never from the network: a partial clone's absent blob is left out, not fetched (git 2.45+ reads this).
    const git = spawn('git', ['cat-file', '--batch'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], signal, env: { ...process.env, GIT_NO_LAZY_FETCH: '1' } });
    let next = 0;
    let pending: Buffer = Buffer.alloc(0);
    /** Bytes of the current object's body still to come (with its trailing newline), or -1 between objects. */
    let body = -1;
    const parts: Buffer[] = [];
    let failure: Error | null = null;
    let err = '';
    /** A slice is scheduled: `pending` still holds output (git may have exited meanwhile). */
    let scheduled = false;
    /** git's exit code once the process and its pipes closed (undefined before). */
    let closed: number | null | undefined;
    const finish = (code: number | null): void => {
      if (failure) return reject(failure);
      // Objects git never answered for (it stopped early) are unreadable too.
      if (next === 0 && code !== 0) return reject(new Error(`git cat-file failed: ${err.trim().slice(0, 300)}`));
      while (next < entries.length) onBlob(entries[next++], null);
      resolvePromise();
    };
    /**
     * When this turn of the event loop's first slice began (-1: none yet). The budget is the turn's,
     * not each drain's: git's pipe delivers many chunks in one poll phase, each drained at once while
     * the stream flows (18 slices of 4 ms in a row held the loop 50–90 ms exporting m1nd's own tree).
     */
    let turnStart = -1;
    const turnSpent = (): boolean => {
      const now = performance.now();
      if (turnStart < 0) {
        turnStart = now;
        setImmediate(() => (turnStart = -1));
      }
      return now - turnStart > BLOB_SLICE_MS;
    };
    /** Handles what `pending` holds until it is consumed or the turn's slice is spent (then resumes in the next turn). */
    const drain = (): void => {
      scheduled = false;
      try {
        while (pending.length > 0 && next < entries.length) {
          if (turnSpent()) {
            git.stdout.pause();
            scheduled = true;
            setImmediate(drain);
            return;
          }
          if (body < 0) {
            const nl = pending.indexOf(10);
            if (nl < 0) break;
            const header = pending.subarray(0, nl).toString('utf8');
            pending = pending.subarray(nl + 1);
            const [, type, size] = header.split(' ');
            if (type === 'blob') body = Number(size) + 1;
            else onBlob(entries[next++], null); // "<oid> missing" (or not a blob)
            continue;
          }
          const take = Math.min(body, pending.length);
          parts.push(pending.subarray(0, take));
          pending = pending.subarray(take);
          body -= take;
          if (body === 0) {
            const whole = Buffer.concat(parts);
            parts.length = 0;
            body = -1;
            onBlob(entries[next++], whole.subarray(0, whole.length - 1));
          }
        }
      } catch (error) {
        failure = error as Error;
        git.kill('SIGKILL');
      }
      // The stream ends (and git closes) as soon as it has handed over its last chunk, paused or not.
      if (closed !== undefined) finish(closed);
      else git.stdout.resume();
    };
    git.stdout.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      // A paused stream can still deliver what it had buffered: the slice in flight picks it up.
      if (!git.stdout.isPaused()) drain();
    });
    git.stderr.on('data', (c: Buffer) => (err.length < 2000 ? (err += c) : undefined));
    git.on('error', reject);
    git.stdin.on('error', () => undefined);
    git.on('close', (code) => {
      closed = code;
      if (!scheduled) finish(code);
    });
    git.stdin.end(entries.map((e) => e.oid).join('\n') + '\n');
  });
}
