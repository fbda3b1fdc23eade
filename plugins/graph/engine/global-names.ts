/**
 * The last rule of bare-name resolution: a name matched workspace-wide, where the language allows
 * it, preferring a unique candidate, then one in the caller's directory, then a few at low weight.
 */
import type { FileScope } from './file-scope.ts';
import { dirOf } from './resolve.ts';
import { MAX_AMBIGUOUS, NONE, type Dependencies, type NameResolution, type SymbolTables } from './resolution-tables.ts';

/** Picks among workspace-wide candidates: unique → 0.7; else prefer one in the same directory; else up to 3 at 0.3. */
export function fromGlobal(name: string, candidates: number[], fromPath: string, tables: SymbolTables, deps: Dependencies): NameResolution {
  deps.push(name);
  if (candidates.length === 0) return NONE;
  if (candidates.length === 1) return { targets: candidates, confidence: 0.7 };
  // Order by id so the answer does not depend on the order files were added in.
  if (candidates.length <= 64) candidates.sort((a, b) => (tables.node(a).id < tables.node(b).id ? -1 : 1));
  const dir = dirOf(fromPath);
  const near = candidates.filter((c) => dirOf(tables.node(c).path) === dir);
  if (near.length === 1) return { targets: near, confidence: 0.6 };
  if (candidates.length <= MAX_AMBIGUOUS) return { targets: candidates, confidence: 0.3 };
  return NONE;
}

/** Whether a bare name no rule found may still be matched workspace-wide (rule 4). */
export function globalFallback(scope: FileScope): boolean {
  // Python and Go bind every name a file uses in the file, its package or its imports.
  if (scope.language === 'python' || scope.language === 'go') return scope.unresolvedWildcard;
  return true;
}
