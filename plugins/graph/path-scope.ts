/**
 * The `scope` argument of every verb that narrows its answer to part of the workspace, read one way:
 * through the engine's workspace resolver (the path check every path argument meets), so `src`,
 * `./src/`, `src//` and the workspace's own absolute path `/abs/repo/src` all mean the folder `src`,
 * and `.`, `./` or nothing mean the whole workspace. A path matches when it is the scope or lies
 * under it (`src` takes `src/a.ts`, not `src2/a.ts`). On the federated view a scope is
 * `<repo>::path`; `<repo>::` alone takes that repository's files. A scope that is neither on disk
 * nor over any file of the graph (a mistyped folder) is refused, naming the graph's top folders:
 * an empty answer would read as "nothing there".
 */
import { existsSync } from 'node:fs';
import type { CodeGraphEngine } from './engine/engine.ts';
import { EngineError, EngineErrorCodes } from './engine/errors.ts';
import { engineCall } from './service.ts';
import { NAMESPACE_SEPARATOR } from './federated-view.ts';

export interface PathScope {
  /** The workspace-relative folder or file kept; undefined: the whole workspace. */
  prefix: string | undefined;
  /** Whether a workspace-relative path is inside the scope. */
  has(path: string): boolean;
}

const WHOLE: PathScope = { prefix: undefined, has: () => true };

/** Reads `scope` through `engine`'s workspace resolver (which refuses a path leaving the workspace). */
export function pathScope(engine: Pick<CodeGraphEngine, 'resolvePath'> & Partial<Pick<CodeGraphEngine, 'filePaths'>>, scope: string | undefined | null): PathScope {
  // A refusal (outside the workspace, naming nothing) is the host's error with its code and hint.
  return engineCall(() => readScope(engine, scope));
}

function readScope(engine: Pick<CodeGraphEngine, 'resolvePath'> & Partial<Pick<CodeGraphEngine, 'filePaths'>>, scope: string | undefined | null): PathScope {
  if (scope === undefined || scope === null) return WHOLE;
  const text = scope.trim();
  if (text === '' || text === '.' || /^\.\/+$/.test(text)) return WHOLE;
  const resolved = engine.resolvePath(text);
  const prefix = resolved.relative.replace(/\/+$/, '');
  if (prefix === '') return WHOLE;
  if (prefix.endsWith(NAMESPACE_SEPARATOR)) return { prefix, has: (path) => path.startsWith(prefix) };
  const under = `${prefix}/`;
  const has = (path: string) => path === prefix || path.startsWith(under);
  // On disk, or in the graph (a past ref's graph, a file since deleted): else a scope naming nothing.
  if (engine.filePaths && !existsSync(resolved.absolute)) {
    const paths = engine.filePaths();
    if (!paths.some(has)) {
      const top = [...new Set(paths.filter((p) => p.includes('/')).map((p) => p.split('/')[0]))].slice(0, 6);
      throw new EngineError(
        EngineErrorCodes.PATH_NOT_FOUND,
        `scope "${text.length > 200 ? `${text.slice(0, 200)}…` : text}" names no folder or file of the workspace or the graph`,
        top.length > 0 ? `pass a folder such as ${top.map((t) => JSON.stringify(t)).join(', ')}, or leave scope out for the whole workspace` : 'leave scope out for the whole workspace',
      );
    }
  }
  return { prefix, has };
}
