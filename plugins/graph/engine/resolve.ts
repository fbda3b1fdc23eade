/**
 * Import resolution: a specifier as written → workspace files, per language (TS/JS relative and
 * tsconfig paths, Python absolute/relative, Rust crate/super/self/mod, Go via go.mod, Java via
 * source-root suffix). Name resolution lives in resolve-names.ts. Rules: docs/graph-model.md.
 */
import { posix } from 'node:path';
import { sourceOfOutput } from './build-outputs.ts';
import type { ExtractedImport, Language } from './extraction.ts';
import { dirOf, escapes, joinRel, type PathIndex, type ResolveCache, type ResolvedImport, type ResolverConfig } from './resolve-base.ts';
import { resolveGo, resolveJava } from './resolve-go-java.ts';
import { resolvePython } from './resolve-python.ts';
import { resolveRust } from './resolve-rust.ts';

export { dirOf, emptyResolverConfig, ResolveCache, type PathIndex, type ResolvedImport, type ResolverConfig } from './resolve-base.ts';

const TS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};
/** Resolves one import of a file to workspace files. */
export function resolveImport(
  imp: ExtractedImport,
  fromPath: string,
  language: Language,
  files: PathIndex,
  config: ResolverConfig,
  cache: ResolveCache,
): ResolvedImport {
  const base: ResolvedImport = {
    specifier: imp.specifier,
    line: imp.line,
    names: imp.names,
    targets: [],
    ...(imp.alias ? { alias: imp.alias } : {}),
  };
  switch (language) {
    case 'typescript':
    case 'tsx':
    case 'javascript':
      return resolveScript(base, fromPath, files, config);
    case 'python':
      return resolvePython(base, fromPath, files, cache);
    case 'rust':
      return resolveRust(base, fromPath, files, cache);
    case 'go':
      return resolveGo(base, files, config);
    case 'java':
      return resolveJava(base, files);
    default:
      return { ...base, unresolved: 'external' };
  }
}

// ---------------------------------------------------------------------------------------------
// TypeScript / JavaScript

function probeScript(baseNoExt: string, files: PathIndex): string | null {
  if (files.has(baseNoExt)) return baseNoExt;
  const ext = posix.extname(baseNoExt);
  const alt = JS_TO_TS[ext];
  if (alt) {
    // `import './a.js'` written for a `.ts` source (NodeNext / bundler convention).
    const stem = baseNoExt.slice(0, -ext.length);
    for (const e of alt) if (files.has(stem + e)) return stem + e;
  }
  for (const e of TS_EXTENSIONS) if (files.has(baseNoExt + e)) return baseNoExt + e;
  // A folder's index (`require('..')` from `test/` names the root's `index.js`: no leading `/` there).
  const index = baseNoExt === '' ? 'index' : `${baseNoExt}/index`;
  for (const e of TS_EXTENSIONS) if (files.has(index + e)) return index + e;
  return null;
}

function resolveScript(base: ResolvedImport, fromPath: string, files: PathIndex, config: ResolverConfig): ResolvedImport {
  const spec = base.specifier.split(/[?#]/)[0];
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
    const rel = joinRel(dirOf(fromPath), spec);
    if (escapes(rel)) return { ...base, unresolved: 'not_found' };
    // The package as built, in a checkout that has not built it: the sources it is compiled from.
    const built = config.tsOutputs ? sourceOfOutput(rel, config.tsOutputs) : null;
    const hit = probeScript(rel, files) ?? (built === null ? null : probeScript(built, files));
    return hit ? { ...base, targets: [hit] } : { ...base, unresolved: 'not_found' };
  }
  if (spec.startsWith('/')) return { ...base, unresolved: 'not_found' };
  if (config.tsPaths) {
    for (const [pattern, replacements] of Object.entries(config.tsPaths.paths)) {
      const star = pattern.indexOf('*');
      let captured: string | null = null;
      if (star < 0) captured = pattern === spec ? '' : null;
      else {
        const pre = pattern.slice(0, star);
        const post = pattern.slice(star + 1);
        if (spec.startsWith(pre) && spec.endsWith(post) && spec.length >= pre.length + post.length) {
          captured = spec.slice(pre.length, spec.length - post.length);
        }
      }
      if (captured === null) continue;
      for (const r of replacements) {
        const rel = joinRel(config.tsPaths.baseDir, r.replace('*', captured));
        const hit = escapes(rel) ? null : probeScript(rel, files);
        if (hit) return { ...base, targets: [hit] };
      }
    }
  }
  if (config.tsBaseUrl !== undefined) {
    const rel = joinRel(config.tsBaseUrl, spec);
    const hit = escapes(rel) ? null : probeScript(rel, files);
    if (hit) return { ...base, targets: [hit] };
  }
  return { ...base, unresolved: 'external' };
}
