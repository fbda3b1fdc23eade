/** Reading one workspace file for a verb, through the path guard (no escapes out of the root). */
import { readFileSync, statSync } from 'node:fs';
import { EngineError, EngineErrorCodes } from './errors.ts';
import { resolveWorkspacePath } from './workspace.ts';

/** A file read through the workspace guard. */
export interface FileContent {
  path: string;
  absolutePath: string;
  content: string;
  size: number;
  lines: number;
}

/** Reads a workspace file as UTF-8 (user path resolved against `root`); throws PATH_NOT_FOUND when it is no file. */
export function readWorkspaceFile(root: string, rootReal: string, userPath: string): FileContent {
  const p = resolveWorkspacePath(root, userPath, rootReal);
  let size: number;
  try {
    const st = statSync(p.absolute);
    if (!st.isFile()) throw new Error('not a file');
    size = st.size;
  } catch {
    throw new EngineError(EngineErrorCodes.PATH_NOT_FOUND, `no file "${p.relative}" in ${root}`, 'list files with glob or seek, then pass one of their paths');
  }
  const content = readFileSync(p.absolute, 'utf8');
  // A trailing newline ends the last line rather than starting an empty one.
  let lines = content.length === 0 ? 0 : 1;
  for (let i = content.indexOf('\n'); i >= 0 && i < content.length - 1; i = content.indexOf('\n', i + 1)) lines++;
  return { path: p.relative, absolutePath: p.absolute, content, size, lines };
}
