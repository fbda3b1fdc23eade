/**
 * The document registry the workspace's language services share. Parsed and bound files are shared
 * between programs whose settings give the same key; the stock key also separates options that only
 * change which diagnostics the binder reports (`alwaysStrict`, unused labels, unreachable code, switch
 * fall-through) or what is emitted (`importHelpers`). The checker pass reads no diagnostics and emits
 * nothing, so those are left out of the key: a test fixture's `"strict": false` config then reuses
 * the files the main program parsed instead of parsing them again.
 */
import ts from 'typescript';

/** Options that change nothing the checker pass reads from a source file. */
const DIAGNOSTIC_ONLY: readonly (keyof ts.CompilerOptions)[] = ['alwaysStrict', 'strict', 'allowUnusedLabels', 'allowUnreachableCode', 'noFallthroughCasesInSwitch', 'importHelpers'];

/** A registry whose key ignores diagnostic-only options. */
export function sharedDocumentRegistry(): ts.DocumentRegistry {
  const registry = ts.createDocumentRegistry();
  const key = registry.getKeyForCompilationSettings.bind(registry);
  registry.getKeyForCompilationSettings = (settings) => {
    const normalized = { ...settings };
    for (const name of DIAGNOSTIC_ONLY) delete normalized[name];
    return key(normalized);
  };
  return registry;
}
