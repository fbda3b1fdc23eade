/**
 * Path safety for file verbs: a user-supplied path is resolved against the workspace root and
 * refused when it escapes it, lexically (`..`, an absolute path elsewhere) or through a symlink
 * whose real path leaves the root.
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
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

/**
 * Resolves `userPath` (relative to the root, or absolute inside it) and refuses any escape.
 * A path that does not exist yet is checked through its nearest existing ancestor.
 * @throws EngineError M1ND_ERR_PATH_ESCAPE naming the root.
 */
export function resolveWorkspacePath(root: string, userPath: string, rootReal = realRoot(root)): WorkspacePath {
  const absRoot = resolve(root);
  const refuse = (why: string): never => {
    throw new EngineError(
      EngineErrorCodes.PATH_ESCAPE,
      `path "${userPath}" ${why}, outside the workspace root ${absRoot}`,
      `pass a path relative to ${absRoot} (for example "src/index.ts") that stays inside it`,
    );
  };
  if (typeof userPath !== 'string' || userPath.includes('\0')) refuse('is not a valid path');
  const target = resolve(absRoot, userPath === '' ? '.' : userPath);
  if (!inside(absRoot, target)) refuse(isAbsolute(userPath) ? 'is absolute' : 'climbs out with ".."');
  // Follow symlinks: the real location must stay under the real root.
  let probe = target;
  while (!existsSync(probe) && probe !== absRoot) probe = resolve(probe, '..');
  let real: string;
  try {
    real = realpathSync(probe);
  } catch {
    real = probe;
  }
  if (!inside(rootReal, real)) refuse(`resolves through a symlink to ${real}`);
  return { absolute: target, relative: posix.normalize(toRelative(absRoot, target)).replace(/^\.$/, '') };
}
