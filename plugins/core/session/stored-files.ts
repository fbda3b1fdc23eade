/**
 * What the store recorded about each ingested file (content hash, size, mtime, line count), read
 * through a separate read-only SQLite connection so verbs can compare the graph with the disk
 * (cross_verify, am_i_stale) and with a checkpoint (drift) without touching the engine. The engine
 * does not expose these rows; this reader depends only on the documented `files`,
 * `checkpoint_files` and `extractions` tables and degrades to "unavailable" if they differ.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FileExtraction } from '../../graph/engine/extraction.ts';

export interface StoredFile {
  path: string;
  /** sha1 of the bytes, as ingest computed it. */
  hash: string;
  size: number;
  mtimeMs: number;
  loc: number;
  extractionKey: string;
}

export interface StoredFiles {
  available: boolean;
  files: Map<string, StoredFile>;
  /** Why the rows could not be read, when they could not. */
  note?: string;
}

type Row = [string, string, number, number, number, string];

function open(storeDir: string): Database.Database | null {
  const file = path.join(storeDir, 'm1nd.db');
  if (!existsSync(file)) return null;
  return new Database(file, { readonly: true, fileMustExist: true });
}

function read<T>(storeDir: string, fn: (db: Database.Database) => T, fallback: T, onError: (message: string) => T): T {
  let db: Database.Database | null = null;
  try {
    db = open(storeDir);
    if (!db) return fallback;
    return fn(db);
  } catch (error) {
    return onError(error instanceof Error ? error.message : String(error));
  } finally {
    db?.close();
  }
}

function toFile(r: Row): StoredFile {
  return { path: r[0], hash: r[1], size: r[2], mtimeMs: r[3], loc: r[4], extractionKey: r[5] };
}

/** The stored rows of the current generation (all files, or only `paths`). */
export function storedFiles(storeDir: string, paths?: readonly string[]): StoredFiles {
  return read<StoredFiles>(
    storeDir,
    (db) => {
      const files = new Map<string, StoredFile>();
      if (paths) {
        const one = db.prepare('SELECT path, hash, size, mtime_ms, loc, extraction_key FROM files WHERE path = ?').raw();
        for (const p of paths) {
          const r = one.get(p) as Row | undefined;
          if (r) files.set(p, toFile(r));
        }
      } else {
        for (const r of db.prepare('SELECT path, hash, size, mtime_ms, loc, extraction_key FROM files').raw().iterate() as IterableIterator<Row>) files.set(r[0], toFile(r));
      }
      return { available: true, files };
    },
    { available: false, files: new Map(), note: 'no store yet (call ingest)' },
    (message) => ({ available: false, files: new Map(), note: `store rows unreadable: ${message}` }),
  );
}

/** The rows a named checkpoint saved, or null when there is no such checkpoint. */
export function checkpointFiles(storeDir: string, name: string): { createdAt: number; generation: number; files: Map<string, StoredFile> } | null {
  return read(
    storeDir,
    (db) => {
      const cp = db.prepare('SELECT created_at, generation FROM checkpoints WHERE name = ?').raw().get(name) as [number, number] | undefined;
      if (!cp) return null;
      const files = new Map<string, StoredFile>();
      const rows = db.prepare('SELECT path, hash, size, mtime_ms, loc, extraction_key FROM checkpoint_files WHERE name = ?').raw().iterate(name) as IterableIterator<Row>;
      for (const r of rows) files.set(r[0], toFile(r));
      return { createdAt: cp[0], generation: cp[1], files };
    },
    null,
    () => null,
  );
}

/** Stored extractions by key (for the files of a checkpoint that changed since). */
export function storedExtractions(storeDir: string, keys: readonly string[]): Map<string, FileExtraction> {
  return read(
    storeDir,
    (db) => {
      const get = db.prepare('SELECT json FROM extractions WHERE key = ?').pluck();
      const out = new Map<string, FileExtraction>();
      for (const k of keys) {
        const json = get.get(k) as string | undefined;
        if (json) out.set(k, JSON.parse(json) as FileExtraction);
      }
      return out;
    },
    new Map(),
    () => new Map(),
  );
}

/** sha1 (hex) and line count of a workspace file on disk, or null when it is gone. */
export function diskFacts(root: string, relPath: string): { hash: string; loc: number; size: number } | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(root, relPath));
  } catch {
    return null;
  }
  let loc = bytes.length === 0 ? 0 : 1;
  for (let i = bytes.indexOf(10); i >= 0 && i < bytes.length - 1; i = bytes.indexOf(10, i + 1)) loc++;
  return { hash: createHash('sha1').update(bytes).digest('hex'), loc, size: bytes.length };
}
