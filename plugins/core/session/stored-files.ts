/**
 * What the store recorded about each ingested file (content hash, size, mtime, line count), read
 * through the engine, so verbs can compare the graph with the disk (cross_verify, am_i_stale) and
 * with a checkpoint (drift).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CodeGraphEngine } from '../../graph/api.ts';
import type { FileExtraction } from '../../graph/api.ts';
import type { FileRow } from '../../graph/api.ts';

export type StoredFile = FileRow;

export interface StoredFiles {
  available: boolean;
  files: Map<string, StoredFile>;
  /** Why the rows could not be read, when they could not. */
  note?: string;
}

/** The stored rows of the current generation (all files, or only `paths`). */
export function storedFiles(engine: CodeGraphEngine, paths?: readonly string[]): StoredFiles {
  try {
    return { available: true, files: engine.storedFiles(paths) };
  } catch (error) {
    return { available: false, files: new Map(), note: `store rows unreadable: ${(error as Error).message}` };
  }
}

/** The rows a named checkpoint saved, or null when there is no such checkpoint. */
export function checkpointFiles(engine: CodeGraphEngine, name: string): { createdAt: number; generation: number; files: Map<string, StoredFile> } | null {
  const cp = engine.checkpointFiles(name);
  return cp ? { createdAt: cp.info.createdAt, generation: cp.info.generation, files: cp.files } : null;
}

/** Stored extractions by key (for the files of a checkpoint that changed since). */
export function storedExtractions(engine: CodeGraphEngine, rows: readonly Pick<StoredFile, 'extractionKey' | 'path'>[]): Map<string, FileExtraction> {
  const out = new Map<string, FileExtraction>();
  for (const r of rows) {
    const ex = engine.storedExtraction(r.extractionKey, r.path);
    if (ex) out.set(r.extractionKey, ex);
  }
  return out;
}

/** sha1 (hex), line count and size of a workspace file on disk, or null when it is gone. */
export function diskFacts(root: string, relPath: string): DiskFacts | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(root, relPath));
  } catch {
    return null;
  }
  return factsOf(bytes);
}

export interface DiskFacts {
  hash: string;
  loc: number;
  size: number;
}

function factsOf(bytes: Buffer): DiskFacts {
  let loc = bytes.length === 0 ? 0 : 1;
  for (let i = bytes.indexOf(10); i >= 0 && i < bytes.length - 1; i = bytes.indexOf(10, i + 1)) loc++;
  return { hash: createHash('sha1').update(bytes).digest('hex'), loc, size: bytes.length };
}
