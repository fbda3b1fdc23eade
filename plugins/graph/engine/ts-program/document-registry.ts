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

/** The lib files' registry every workspace's registry shares, counting the lib files it parses. */
export class SharedLibs {
  readonly registry = sharedDocumentRegistry();
  /** Lib files parsed so far: acquired while no service held them. */
  parsed = 0;
  private readonly held = new Map<string, number>();

  acquired(path: string, key: string): void {
    const k = `${key}\0${path}`;
    const n = this.held.get(k) ?? 0;
    if (n === 0) this.parsed++;
    this.held.set(k, n + 1);
  }

  released(path: string, key: string): void {
    const k = `${key}\0${path}`;
    const n = (this.held.get(k) ?? 1) - 1;
    if (n <= 0) this.held.delete(k);
    else this.held.set(k, n);
  }
}

/**
 * A registry of a workspace's own that keeps the compiler's lib files in `libs`, shared by every
 * registry made over it: a second workspace's programs reuse the lib files the first one parsed.
 * The workspace's files stay in a registry of its own (two workspaces never share a file's text).
 * Lib files are never edited (their version is constant), so sharing them never updates one under a
 * program that holds it.
 */
export function libSharingRegistry(libs: SharedLibs): TS.DocumentRegistry {
  const own = sharedDocumentRegistry();
  const shared = libs.registry;
  const libDir = `${dirname(ts.getDefaultLibFilePath({}))}/`;
  // A service's canonical paths are lower-cased unless its host says file names are case-sensitive.
  const libDirLower = libDir.toLowerCase();
  const isLib = (path: string): boolean => path.startsWith(libDir) || path.startsWith(libDirLower);
  return {
    acquireDocument: (fileName, settings, ...rest) => {
      if (!isLib(fileName)) return own.acquireDocument(fileName, settings, ...rest);
      const host = settings as TS.MinimalResolutionCacheHost;
      const key = shared.getKeyForCompilationSettings(typeof host.getCompilationSettings === 'function' ? host.getCompilationSettings() : (settings as TS.CompilerOptions));
      libs.acquired(fileName, key);
      return shared.acquireDocument(fileName, settings, ...rest);
    },
    acquireDocumentWithKey: (fileName, path, settings, key, ...rest) => {
      if (!isLib(path)) return own.acquireDocumentWithKey(fileName, path, settings, key, ...rest);
      libs.acquired(path, key);
      return shared.acquireDocumentWithKey(fileName, path, settings, key, ...rest);
    },
    updateDocument: (fileName, ...rest) => (isLib(fileName) ? shared : own).updateDocument(fileName, ...rest),
    updateDocumentWithKey: (fileName, path, ...rest) => (isLib(path) ? shared : own).updateDocumentWithKey(fileName, path, ...rest),
    getKeyForCompilationSettings: (settings) => own.getKeyForCompilationSettings(settings),
    releaseDocument: (fileName: string, settings: TS.CompilerOptions, scriptKind?: TS.ScriptKind, format?: TS.ResolutionMode) => {
      if (!isLib(fileName)) return own.releaseDocument(fileName, settings, scriptKind!, format);
      libs.released(fileName, shared.getKeyForCompilationSettings(settings));
      return shared.releaseDocument(fileName, settings, scriptKind!, format);
    },
    releaseDocumentWithKey: (path: TS.Path, key: TS.DocumentRegistryBucketKey, scriptKind?: TS.ScriptKind, format?: TS.ResolutionMode) => {
      if (!isLib(path)) return own.releaseDocumentWithKey(path, key, scriptKind!, format);
      libs.released(path, key);
      return shared.releaseDocumentWithKey(path, key, scriptKind!, format);
    },
    reportStats: () => `${own.reportStats()}\n${shared.reportStats()}`,
  };
}
