/**
 * Durable file replacement: the new content goes to a temp file beside the target (same
 * directory, so the rename is atomic), is fsynced, takes the original's mode, then replaces the
 * target by rename; the directory is fsynced so the rename survives a crash. A new file gets its
 * parent directories. Public signatures use Uint8Array (a Buffer is one), so plugin authors need no
 * @types/node. Plugins that write workspace or store files use this (exported from `m1nd`).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A temp file written and synced, ready to be renamed over its target. */
export interface StagedFile {
  target: string;
  temp: string;
  /** The target existed when staged (false: the write creates it). */
  existed: boolean;
}

/** Temp files left by m1nd writes carry this marker (recovery and cleanup recognise them). */
export const TEMP_MARKER = '.m1nd-tmp-';

/** fsyncs a directory so renames inside it are durable (a no-op where directories cannot be opened). */
export function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms refuse fsync on directories; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Writes bytes to a path and fsyncs them (the path must not exist). */
export function writeDurable(path: string, bytes: Uint8Array, mode?: number): void {
  const fd = openSync(path, 'wx', mode ?? 0o666);
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `content` to a synced temp file beside `target`, with the target's mode when it exists. */
export function stageFile(target: string, content: string | Uint8Array, tag = randomBytes(4).toString('hex')): StagedFile {
  const st = statSync(target, { throwIfNoEntry: false });
  mkdirSync(dirname(target), { recursive: true });
  const temp = join(dirname(target), `${TEMP_MARKER}${tag}-${basename(target)}`);
  // The mode passed to open is masked by the umask; the original's exact mode is what a write keeps.
  writeDurable(temp, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, st ? st.mode & 0o7777 : undefined);
  return { target, temp, existed: !!st };
}

/** `writeDurable` with the write and the fsync in libuv's thread pool: the event loop is not held for the disk. */
export async function writeDurableAsync(path: string, bytes: Uint8Array, mode?: number): Promise<void> {
  const handle = await open(path, 'wx', mode ?? 0o666);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    let off = 0;
    while (off < bytes.length) off += (await handle.write(bytes, off, bytes.length - off)).bytesWritten;
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** `stageFile` with its I/O off the main thread (a batch of many files would hold the loop for every fsync). */
export async function stageFileAsync(target: string, content: string | Uint8Array, tag = randomBytes(4).toString('hex')): Promise<StagedFile> {
  const st = await stat(target).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  await mkdir(dirname(target), { recursive: true });
  const temp = join(dirname(target), `${TEMP_MARKER}${tag}-${basename(target)}`);
  await writeDurableAsync(temp, typeof content === 'string' ? Buffer.from(content, 'utf8') : content, st ? st.mode & 0o7777 : undefined);
  return { target, temp, existed: !!st };
}

/** Renames a staged temp over its target. */
export function commitStaged(s: StagedFile): void {
  renameSync(s.temp, s.target);
}

/** Removes a staged temp that will not be committed (missing is fine). */
export function discardStaged(s: StagedFile): void {
  try {
    unlinkSync(s.temp);
  } catch {
    // already gone
  }
}

/** Replaces one file atomically and durably. */
export function writeFileAtomic(target: string, content: string | Uint8Array): StagedFile {
  const staged = stageFile(target, content);
  try {
    commitStaged(staged);
  } catch (error) {
    discardStaged(staged);
    throw error;
  }
  syncDir(dirname(target));
  return staged;
}
