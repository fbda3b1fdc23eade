/** The walk's directory reads (walk.ts), noting the folders the server's user cannot list. */
import type fg from 'fast-glob';
import { readdir, readdirSync } from 'node:fs';

/**
 * fast-glob's directory reads, noting the directories that fail (EACCES: another user's folder) so
 * the walk skips and reports them (`suppressErrors`) instead of failing the whole ingest on one folder.
 */
export function noteFailedReads(unreadable: string[]): Partial<fg.FileSystemAdapter> {
  const failed = (dir: string, error: NodeJS.ErrnoException | null): void => {
    if (error && error.code !== 'ENOENT') unreadable.push(dir);
  };
  // fast-glob calls readdir(path, callback) or readdir(path, { withFileTypes: true }, callback).
  type Callback = (error: NodeJS.ErrnoException | null, entries: unknown) => void;
  const readdirNoted = (dir: string, ...rest: unknown[]): void => {
    const callback = rest.pop() as Callback;
    const done: Callback = (error, entries) => {
      failed(dir, error);
      callback(error, entries);
    };
    if (rest.length > 0) readdir(dir, rest[0] as { withFileTypes: true }, done);
    else readdir(dir, done);
  };
  const readdirSyncNoted = (dir: string, options?: { withFileTypes: true }): unknown => {
    try {
      return options ? readdirSync(dir, options) : readdirSync(dir);
    } catch (error) {
      failed(dir, error as NodeJS.ErrnoException);
      throw error;
    }
  };
  return { readdir: readdirNoted as unknown as fg.FileSystemAdapter['readdir'], readdirSync: readdirSyncNoted as unknown as fg.FileSystemAdapter['readdirSync'] };
}
