/**
 * Module resolution for the checker's programs that reads a workspace's build output as its sources
 * (see ../build-outputs.ts): a relative import into a tsconfig's `outDir` resolves at the same path
 * under that config's `rootDir`.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import type TS from 'typescript';
import { sortOutputs, sourceOfOutput, type OutputRoot } from '../build-outputs.ts';
import ts from './compiler.ts';
import type { ParsedConfig } from './configs.ts';

/** A path with `/` separators. */
export const toPosix = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'));

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
 * A `resolveModuleNameLiterals` for a language service host: a relative import into an output
 * folder resolves at the source path when a source is there, built or not (the output is never
 * ingested: a declaration in it is no graph node); everything else as the compiler resolves it, with
 * a cache the caller clears when files come or go.
 */
export function outputAwareResolver(
  root: string,
  outputs: readonly OutputRoot[],
  cache: TS.ModuleResolutionCache,
): NonNullable<TS.LanguageServiceHost['resolveModuleNameLiterals']> {
  return (literals, containingFile, redirected, options, containingSourceFile) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, options);
      const first = () => ts.resolveModuleName(literal.text, containingFile, options, ts.sys, cache, redirected, mode);
      if (!literal.text.startsWith('.')) return first();
      // Built or not: the output is never ingested, so a declaration there is no graph node.
      const target = toPosix(relative(root, resolve(dirname(containingFile), literal.text)));
      const source = target.startsWith('..') ? null : sourceOfOutput(target, outputs);
      if (source === null) return first();
      const mapped = ts.resolveModuleName(toPosix(resolve(root, source)), containingFile, options, ts.sys, cache, redirected, mode);
      return mapped.resolvedModule ? mapped : first();
    });
}
