/**
 * The `scope` argument of every verb that narrows its answer to part of the workspace, read one way:
 * through the engine's workspace resolver (the path check every path argument meets), so `src`,
 * `./src/`, `src//` and the workspace's own absolute path `/abs/repo/src` all mean the folder `src`,
 * and `.`, `./` or nothing mean the whole workspace. A path matches when it is the scope or lies
 * under it (`src` takes `src/a.ts`, not `src2/a.ts`). On the federated view a scope is
 * `<repo>::path`; `<repo>::` alone takes that repository's files.
 */
import type { CodeGraphEngine } from './engine/engine.ts';
import { NAMESPACE_SEPARATOR } from './federated-view.ts';

export interface PathScope {
  /** The workspace-relative folder or file kept; undefined: the whole workspace. */
  prefix: string | undefined;
  /** Whether a workspace-relative path is inside the scope. */
  has(path: string): boolean;
}

const WHOLE: PathScope = { prefix: undefined, has: () => true };

/** Reads `scope` through `engine`'s workspace resolver (which refuses a path leaving the workspace). */
export function pathScope(engine: Pick<CodeGraphEngine, 'resolvePath'>, scope: string | undefined | null): PathScope {
  if (scope === undefined || scope === null) return WHOLE;
  const text = scope.trim();
  if (text === '' || text === '.' || /^\.\/+$/.test(text)) return WHOLE;
  const prefix = engine.resolvePath(text).relative.replace(/\/+$/, '');
  if (prefix === '') return WHOLE;
  if (prefix.endsWith(NAMESPACE_SEPARATOR)) return { prefix, has: (path) => path.startsWith(prefix) };
  const under = `${prefix}/`;
  return { prefix, has: (path) => path === prefix || path.startsWith(under) };
}
