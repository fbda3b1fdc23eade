/**
 * Files of the user's cache folder that the process trusts (a V8 code cache runs the code it holds):
 * written through a temporary file renamed over the target, with a header holding a magic tag and
 * the SHA-1 of the payload, checked on every read. The folder is `M1ND_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/m1nd` or `~/.cache/m1nd` (`M1ND_CACHE_DIR=off` for none), created 0700.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const MAGIC = Buffer.from('M1NDCC01');
const HEADER = MAGIC.length + 20;

/** The cache folder, or null when turned off (`M1ND_CACHE_DIR=off`). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const set = env.M1ND_CACHE_DIR;
  if (set !== undefined && set !== '') return set === 'off' ? null : set;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'm1nd');
}

/**
 * The name of the cache file for `source` under `dir`: `prefix` and a hash of the source file (path,
 * size, mtime, inode) and of Node, V8 and the architecture.
 */
export function cacheFileFor(dir: string, prefix: string, source: string, suffix: string): string {
  const st = statSync(source);
  const key = createHash('sha1')
    .update([source, st.size, st.mtimeMs, st.ino, process.version, process.versions.v8, process.arch].join('\0'))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `${prefix}${key}${suffix}`);
}

/** The payload stored in `file`, or why there is none usable (`none`: no file; `corrupt`: failed the check). */
export function readCacheFile(file: string | null): Buffer | 'none' | 'corrupt' {
  if (file === null) return 'none';
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch {
    return 'none';
  }
  if (raw.length <= HEADER || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return 'corrupt';
  const payload = raw.subarray(HEADER);
  return createHash('sha1').update(payload).digest().equals(raw.subarray(MAGIC.length, HEADER)) ? payload : 'corrupt';
}

/**
 * Writes `data` with its header to `file` atomically, then removes all but the newest `keep` files
 * of the folder sharing the file's name up to its hash (other builds or Node versions). False on any failure.
 */
export function writeCacheFile(file: string, data: Uint8Array, keep = 2): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.concat([MAGIC, createHash('sha1').update(data).digest(), data]), { mode: 0o600 });
    renameSync(tmp, file);
    const prefix = basename(file).replace(/[0-9a-f]{16}(\.[a-z0-9]+)$/, '');
    const suffix = /(\.[a-z0-9]+)$/.exec(file)?.[1] ?? '';
    const others = readdirSync(dirname(file))
      .filter((n) => n.startsWith(prefix) && n.endsWith(suffix) && join(dirname(file), n) !== file)
      .map((n) => ({ f: join(dirname(file), n), at: statSync(join(dirname(file), n)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const { f } of others.slice(keep - 1)) rmSync(f, { force: true });
    return true;
  } catch {
    return false;
  }
}
