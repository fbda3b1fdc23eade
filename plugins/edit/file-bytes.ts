/** Reading a workspace file once for an edit verb: its bytes, text and content hash from the same read. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { engineCall } from '../graph/api.ts';

/** sha1 hex of bytes: the content hash the store records per file and `expected_hash` compares. */
export function hashBytes(bytes: Buffer | string): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** A workspace file read through the path guard. */
export interface FileBytes {
  path: string;
  absolute: string;
  bytes: Buffer;
  text: string;
  hash: string;
}

/** Reads a workspace file (path-guarded); PATH_NOT_FOUND when it is not a file. */
export function readFileBytes(graph: GraphService, userPath: string): FileBytes {
  const p = engineCall(() => graph.engine.resolvePath(userPath));
  let bytes: Buffer;
  try {
    bytes = readFileSync(p.absolute);
  } catch {
    throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `no file "${p.relative}" in ${graph.engine.root}`, { hint: graph.engine.missingFileHint(userPath) });
  }
  return { path: p.relative, absolute: p.absolute, bytes, text: bytes.toString('utf8'), hash: hashBytes(bytes) };
}
