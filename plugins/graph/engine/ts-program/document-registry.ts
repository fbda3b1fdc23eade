/**
 * The document registry the workspace's language services share. Parsed and bound files are shared
 * between programs whose settings give the same key; the stock key also separates options that only
 * change which diagnostics the binder reports (`alwaysStrict`, unused labels, unreachable code, switch
 * fall-through) or what is emitted (`importHelpers`). The checker pass reads no diagnostics and emits
 * nothing, so those are left out of the key: a test fixture's `"strict": false` config then reuses
 * the files the main program parsed instead of parsing them again.
 *
 * JSDoc comments are parsed only where they carry types (JS files): in TS files and the lib .d.ts
 * files, whose comments are long (lib.dom.d.ts is mostly JSDoc), the checker never reads them, and
 * the pass reads no comments either. This cut the warm-up's CPU by ~15% on unjs/nitro, edges unchanged.
 *
 * The lib files (lib.dom.d.ts, the ES libs) are most of what a small workspace's warm-up parses:
 * `libSharingRegistry` keeps them in one registry for every workspace the checker worker serves.
 */
import { dirname } from 'node:path';
import type TS from 'typescript';
import ts from './compiler.ts';

/** How the services parse JSDoc (the registry and every service host must agree). */
export const JSDOC_PARSING = ts.JSDocParsingMode.ParseForTypeInfo;

/** Options that change nothing the checker pass reads from a source file. */
const DIAGNOSTIC_ONLY: readonly (keyof TS.CompilerOptions)[] = ['alwaysStrict', 'strict', 'allowUnusedLabels', 'allowUnreachableCode', 'noFallthroughCasesInSwitch', 'importHelpers'];

/** A registry whose key ignores diagnostic-only options. */
export function sharedDocumentRegistry(): TS.DocumentRegistry {
  const registry = ts.createDocumentRegistry(undefined, undefined, JSDOC_PARSING);
  const key = registry.getKeyForCompilationSettings.bind(registry);
  registry.getKeyForCompilationSettings = (settings) => {
    const normalized = { ...settings };
    for (const name of DIAGNOSTIC_ONLY) delete normalized[name];
    return key(normalized);
  };
  return registry;
}

/**
 * A registry of a workspace's own that keeps the compiler's lib files in `libs`, shared by every
 * registry made over it: a second workspace's programs reuse the lib files the first one parsed.
 * The workspace's files stay in a registry of its own (two workspaces never share a file's text).
 * Lib files are never edited (their version is constant), so sharing them never updates one under a
 * program that holds it.
 */
export function libSharingRegistry(libs: TS.DocumentRegistry): TS.DocumentRegistry {
  const own = sharedDocumentRegistry();
  const libDir = `${dirname(ts.getDefaultLibFilePath({}))}/`;
  const pick = (path: string): TS.DocumentRegistry => (path.startsWith(libDir) ? libs : own);
  return {
    acquireDocument: (fileName, ...rest) => pick(fileName).acquireDocument(fileName, ...rest),
    acquireDocumentWithKey: (fileName, path, ...rest) => pick(path).acquireDocumentWithKey(fileName, path, ...rest),
    updateDocument: (fileName, ...rest) => pick(fileName).updateDocument(fileName, ...rest),
    updateDocumentWithKey: (fileName, path, ...rest) => pick(path).updateDocumentWithKey(fileName, path, ...rest),
    getKeyForCompilationSettings: (settings) => own.getKeyForCompilationSettings(settings),
    releaseDocument: (fileName: string, settings: TS.CompilerOptions, scriptKind?: TS.ScriptKind, format?: TS.ResolutionMode) => pick(fileName).releaseDocument(fileName, settings, scriptKind!, format),
    releaseDocumentWithKey: (path: TS.Path, key: TS.DocumentRegistryBucketKey, scriptKind?: TS.ScriptKind, format?: TS.ResolutionMode) => pick(path).releaseDocumentWithKey(path, key, scriptKind!, format),
    reportStats: () => `${own.reportStats()}\n${libs.reportStats()}`,
  };
}
