/**
 * Files of the user's cache folder that the process trusts (a V8 code cache runs the code it holds):
 * written through a temporary file renamed over the target, with a header holding a magic tag, the
 * payload's length and its CRC-32, checked on every read. The folder is `M1ND_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/m1nd` or `~/.cache/m1nd` (`M1ND_CACHE_DIR=off` for none), created 0700.
 *
 * The check is against damage (a torn or truncated file, a disk error), not against someone who can
 * write the folder (who could as well write the bundle). CRC-32 (zlib's, `zlib.crc32`) rather than a
 * cryptographic hash: `node:crypto` costs every start ~4% of its instructions to load (18 modules and
 * OpenSSL's set-up), and nothing else a start runs needs it.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** zlib's CRC-32, loading node:zlib on the first cache file read or written (none with `M1ND_CACHE_DIR=off`). */
function crc32(data: Uint8Array): number {
  return process.getBuiltinModule('node:zlib').crc32(data);
}

const MAGIC = Buffer.from('M1NDCC02');
/** Magic tag, payload length (uint32 LE), CRC-32 of the payload (uint32 LE). */
const HEADER = MAGIC.length + 8;

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
  const key = nameHash([source, st.size, st.mtimeMs, st.ino, process.version, process.versions.v8, process.arch].join('\0'));
  return join(dir, `${prefix}${key}${suffix}`);
}

/**
 * 16 hex digits naming a cache file: two 32-bit FNV-1a lanes (different offset bases) over the UTF-16
 * code units of `text`. A name only has to differ when its inputs do; the content is checked apart.
 */
export function nameHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** `data` behind the header `readCacheFile` checks (what `writeCacheFile` writes; also the tokenizer's table shipped in dist/). */
export function withHeader(data: Uint8Array): Buffer {
  return Buffer.concat([header(data), data]);
}

function header(data: Uint8Array): Buffer {
  const out = Buffer.alloc(HEADER);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(data.length, MAGIC.length);
  out.writeUInt32LE(crc32(data), MAGIC.length + 4);
  return out;
}

/**
 * The payload stored in `file`, or why there is none usable (`none`: no file; `corrupt`: failed the
 * check). `scratch`, when the file fits in it, is read into and the payload is a view of it: memory the
 * process has touched already costs no new page faults (a fresh 2 MB buffer is ~500 on a start that has
 * ~7,000; on this project's VM a fault costs tens of µs).
 */
export function readCacheFile(file: string | null, scratch?: Buffer): Buffer | 'none' | 'corrupt' {
  if (file === null) return 'none';
  let raw: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      raw = scratch !== undefined && size <= scratch.length ? scratch.subarray(0, size) : Buffer.allocUnsafe(size);
      let at = 0;
      while (at < size) {
        const n = readSync(fd, raw, at, size - at, at);
        if (n === 0) break;
        at += n;
      }
      raw = raw.subarray(0, at);
    } finally {
      closeSync(fd);
    }
  } catch {
    return 'none';
  }
  return checkedPayload(raw);
}

/** `readCacheFile` with the read off this thread (the header and checksum are checked here). */
export async function readCacheFileAsync(file: string | null): Promise<Buffer | 'none' | 'corrupt'> {
  if (file === null) return 'none';
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch {
    return 'none';
  }
  return checkedPayload(raw);
}

/** A cache file's payload when its header and checksum hold, else 'corrupt'. */
function checkedPayload(raw: Buffer): Buffer | 'corrupt' {
  if (raw.length <= HEADER || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return 'corrupt';
  const payload = raw.subarray(HEADER);
  if (raw.readUInt32LE(MAGIC.length) !== payload.length) return 'corrupt';
  return crc32(payload) === raw.readUInt32LE(MAGIC.length + 4) ? payload : 'corrupt';
}

/**
 * Writes `data` with its header to `file` atomically, then removes all but the newest `keep` files
 * of the folder sharing the file's name up to its hash (other builds or Node versions). False on any failure.
 */
export function writeCacheFile(file: string, data: Uint8Array, keep = 2): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, withHeader(data), { mode: 0o600 });
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
