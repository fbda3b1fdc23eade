/**
 * Which directories federation may read: the workspace (and anything inside it) always; anything else
 * only inside a directory the user allowed (M1ND_ALLOW_ROOTS, config `allowRoots`). Real paths are
 * compared, so a symlink cannot smuggle a root out.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { ErrorCodes, M1ndError, type HostSettings } from '../../core/index.ts';

function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Whether an absolute directory is the workspace, inside it, or inside an allowed root. */
export function isAllowed(settings: Readonly<HostSettings>, absolute: string): boolean {
  const target = real(absolute);
  return [settings.workspaceRoot, ...settings.allowRoots].map(real).some((root) => within(root, target));
}

/** The real absolute directory of a root the caller names (relative to the workspace), or a refusal naming the setting. */
export function checkRoot(settings: Readonly<HostSettings>, path: string): string {
  const absolute = real(resolve(settings.workspaceRoot, path));
  let isDir = false;
  try {
    isDir = statSync(absolute).isDirectory();
  } catch {
    // reported below
  }
  const allowed = [settings.workspaceRoot, ...settings.allowRoots].map(real);
  if (!allowed.some((root) => within(root, absolute))) {
    throw new M1ndError(ErrorCodes.PATH_ESCAPE, `${path} is outside the workspace and every allowed root`, {
      hint: `allow it first: set M1ND_ALLOW_ROOTS=${absolute} (a path-delimited list) or allowRoots: ['${absolute}'] in m1nd.config.ts, then restart the server`,
      data: { root: absolute, allowed },
    });
  }
  if (!isDir) throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `${path} is not a directory`, { hint: 'name the root folder of a repository' });
  return absolute;
}
