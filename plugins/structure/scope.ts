/** The `scope` parameter of the structure verbs: a workspace path prefix, checked by the workspace guard. */
import { Type } from '../../core/index.ts';
import type { CodeGraphEngine } from '../graph/api.ts';
import { pathScope } from '../graph/api.ts';

/** A function or state name given as a pattern (never a path). */
export const NamePattern = Type.String({ maxLength: 80, pattern: '^[A-Za-z_$][\\w$.]*$' });

/** Schema of `scope`. */
export const ScopeParam = Type.Optional(Type.String({ maxLength: 1024, workspacePath: true, description: 'Only under this workspace path' }));

/** A predicate over workspace-relative paths; `scope` read as every verb reads it (graph API `pathScope`: the workspace checker, no escape). */
export function scopeFilter(engine: CodeGraphEngine, scope: string | undefined): { prefix: string | null; has: (path: string) => boolean } {
  const s = pathScope(engine, scope);
  return { prefix: s.prefix ?? null, has: s.has };
}
