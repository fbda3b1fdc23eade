/**
 * Path safety for file verbs: a user-supplied path is resolved against the workspace root and
 * refused when it escapes it, lexically (`..`, an absolute path elsewhere) or through a symlink
 * whose real path leaves the root.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { EngineError, EngineErrorCodes } from './errors.ts';

/** A path checked to be inside the workspace. */
export interface WorkspacePath {
  /** Absolute path on disk. */
  absolute: string;
  /** Workspace-relative path with forward slashes ('' for the root itself). */
  relative: string;
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Normalises a workspace-relative path to forward slashes without a leading './'. */
export function toRelative(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join('/');
}

/** The workspace root with symlinks resolved (computed once per root by callers). */
export function realRoot(root: string): string {
  return realpathSync(resolve(root));
}

/** Longest accepted user path (PATH_MAX on Linux): longer ones are refused before any work. */
export const MAX_WORKSPACE_PATH_CHARS = 4096;

/** A short, printable prefix of a user path for messages (never the whole of a huge input). */
function shown(userPath: string): string {
  const s = JSON.stringify(userPath.length > 80 ? `${userPath.slice(0, 80)}…` : userPath);
  return s.slice(1, -1);
}

/**
 * Resolves `userPath` (relative to the root, or absolute inside it) and refuses any escape. Symlinks
 * are followed one component at a time from the root, and the walk stops at the first link that
 * leaves it, so nothing outside the root is ever looked at and the answer for an outside path does
 * not depend on what exists there. A path that does not exist yet is fine inside the root.
 * @throws EngineError M1ND_ERR_PATH_ESCAPE naming the root.
 */
export function resolveWorkspacePath(root: string, userPath: string, rootReal = realRoot(root)): WorkspacePath {
  const absRoot = resolve(root);
  // `why` runs into "outside the workspace root": after a clause with a comma, after "leads" without.
  const refuse = (why: string, joiner = ', '): never => {
    throw new EngineError(
      EngineErrorCodes.PATH_ESCAPE,
      `path "${typeof userPath === 'string' ? shown(userPath) : typeof userPath}" ${why}${joiner}outside the workspace root ${absRoot}`,
      `pass a path relative to ${absRoot} (for example "src/index.ts") that stays inside it; for another directory, start a server on it (m1nd serve --workspace <dir>)`,
    );
  };
  if (typeof userPath !== 'string' || userPath.includes('\0')) refuse('is not a valid path');
  if (userPath.length > MAX_WORKSPACE_PATH_CHARS) refuse(`is longer than ${MAX_WORKSPACE_PATH_CHARS} characters`);
  const target = resolve(absRoot, userPath === '' ? '.' : userPath);
  if (!inside(absRoot, target)) refuse(isAbsolute(userPath) ? 'is absolute' : 'climbs out with ".."');
  // Follow symlinks component by component: each link's real location must stay under the real root.
  const parts = toRelative(absRoot, target).split('/').filter((p) => p !== '');
  let at = absRoot;
  for (const part of parts) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at, { throwIfNoEntry: false });
    } catch {
      break;
    }
    if (!st) break;
    if (!st.isSymbolicLink()) continue;
    let real: string;
    try {
      real = realpathSync(at);
    } catch {
      // A dangling link: where it points cannot be checked, so it is not followed.
      refuse('goes through a dangling symlink');
    }
    if (!inside(rootReal, real!)) refuse('goes through a symlink that leads', ' ');
  }
  return { absolute: target, relative: posix.normalize(toRelative(absRoot, target)).replace(/^\.$/, '') };
}
