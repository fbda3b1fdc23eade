/**
 * Module resolution for the checker's programs that reads a workspace's missing build output as its
 * sources (see ../build-outputs.ts): a relative import the compiler cannot resolve, into a tsconfig's
 * `outDir`, is resolved again at the same path under that config's `rootDir`.
 */
import { dirname, relative, resolve } from 'node:path';
import type TS from 'typescript';
import { sortOutputs, sourceOfOutput, type OutputRoot } from '../build-outputs.ts';
import ts from './compiler.ts';
import type { ParsedConfig } from './configs.ts';

const toPosix = (p: string): string => p.split('\\').join('/');

/** The `outDir` → `rootDir` pairs of the workspace's configs (without a `rootDir`: the common folder of the config's files). */
export function configOutputs(root: string, parsed: readonly ParsedConfig[]): OutputRoot[] {
  const rel = (abs: string): string => toPosix(relative(root, abs));
  const outputs: OutputRoot[] = [];
  for (const { cmd } of parsed) {
    const { outDir, rootDir } = cmd.options;
    if (!outDir) continue;
    const sources = rootDir ?? commonFolder(cmd.fileNames.filter((f) => !/\.d\.[cm]?ts$/.test(f)));
    if (sources === null) continue;
    const o = { outDir: rel(outDir), rootDir: rel(sources) };
    if (!o.outDir.startsWith('..') && !o.rootDir.startsWith('..')) outputs.push(o);
  }
  return sortOutputs(outputs);
}

function commonFolder(files: readonly string[]): string | null {
  if (files.length === 0) return null;
  let common = toPosix(dirname(files[0])).split('/');
  for (const f of files) {
    const segs = toPosix(dirname(f)).split('/');
    let i = 0;
    while (i < common.length && i < segs.length && common[i] === segs[i]) i++;
    common = common.slice(0, i);
  }
  return common.join('/') || '/';
}

/**
 * A `resolveModuleNameLiterals` for a language service host: the compiler's own resolution (with a
 * cache the caller clears when files come or go), then, for a relative import left unresolved whose
 * path is inside an output folder, the same import at the source path.
 */
export function outputAwareResolver(
  root: string,
  outputs: readonly OutputRoot[],
  cache: TS.ModuleResolutionCache,
): NonNullable<TS.LanguageServiceHost['resolveModuleNameLiterals']> {
  return (literals, containingFile, redirected, options, containingSourceFile) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, options);
      const first = ts.resolveModuleName(literal.text, containingFile, options, ts.sys, cache, redirected, mode);
      if (first.resolvedModule || !literal.text.startsWith('.')) return first;
      const target = toPosix(relative(root, resolve(dirname(containingFile), literal.text)));
      const source = target.startsWith('..') ? null : sourceOfOutput(target, outputs);
      if (source === null) return first;
      const again = ts.resolveModuleName(toPosix(resolve(root, source)), containingFile, options, ts.sys, cache, redirected, mode);
      return again.resolvedModule ? again : first;
    });
}
