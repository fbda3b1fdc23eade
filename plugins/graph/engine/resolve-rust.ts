/** Rust import resolution: `crate::`, `super::`, `self::` and `mod` paths to module files. */
import { posix } from 'node:path';
import { dirOf, joinRel, type PathIndex, type ResolveCache, type ResolvedImport } from './resolve-base.ts';

// ---------------------------------------------------------------------------------------------
// Rust

function crateRootOf(fromPath: string, files: PathIndex, cache: ResolveCache): string {
  const start = dirOf(fromPath);
  const memo = cache.crateRoot.get(start);
  if (memo !== undefined) return memo;
  let dir = start;
  let found: string | null = null;
  for (;;) {
    if (files.has(joinRel(dir, 'lib.rs')) || files.has(joinRel(dir, 'main.rs'))) {
      found = dir;
      // Prefer the `src` directory of a crate over a nested `main.rs` (src/bin/...).
      if (posix.basename(dir) === 'src') break;
    }
    if (dir === '') break;
    dir = dirOf(dir);
  }
  const root = found ?? start;
  cache.crateRoot.set(start, root);
  return root;
}

function rustModuleSegments(fromPath: string, crateRoot: string): string[] {
  const rel = crateRoot ? fromPath.slice(crateRoot.length + 1) : fromPath;
  const segs = rel.replace(/\.rs$/, '').split('/');
  const last = segs[segs.length - 1];
  if (last === 'mod' || (segs.length === 1 && (last === 'lib' || last === 'main'))) segs.pop();
  return segs;
}

function probeRustModule(crateRoot: string, segs: string[], files: PathIndex): string | null {
  if (segs.length === 0) {
    for (const f of ['lib.rs', 'main.rs']) if (files.has(joinRel(crateRoot, f))) return joinRel(crateRoot, f);
    return null;
  }
  const p = joinRel(crateRoot, segs.join('/'));
  if (files.has(`${p}.rs`)) return `${p}.rs`;
  if (files.has(`${p}/mod.rs`)) return `${p}/mod.rs`;
  return null;
}

/** Longest prefix of `segs` (at least `min` long) naming a module file. */
function longestRustModule(crateRoot: string, segs: string[], min: number, files: PathIndex): { file: string; used: number } | null {
  for (let k = segs.length; k >= min; k--) {
    const hit = probeRustModule(crateRoot, segs.slice(0, k), files);
    if (hit) return { file: hit, used: k };
  }
  return null;
}

export function resolveRust(base: ResolvedImport, fromPath: string, files: PathIndex, cache: ResolveCache): ResolvedImport {
  // Tolerate `a::b::{c, d}` and `a::b::*` written as one specifier.
  const spec = base.specifier.replace(/::\{.*$/, '').replace(/::\*$/, '').replace(/^::/, '');
  const root = crateRootOf(fromPath, files, cache);
  const here = rustModuleSegments(fromPath, root);
  const parts = spec.split('::').filter(Boolean);
  let scope: string[] | null = null;
  let rest = parts;
  if (parts[0] === 'crate') {
    scope = [];
    rest = parts.slice(1);
  } else if (parts[0] === 'self') {
    scope = here;
    rest = parts.slice(1);
  } else if (parts[0] === 'super') {
    let up = 0;
    while (rest[0] === 'super') {
      up++;
      rest = rest.slice(1);
    }
    scope = here.slice(0, Math.max(0, here.length - up));
  }
  const attempt = (segs: string[], min: number): ResolvedImport | null => {
    const hit = longestRustModule(root, segs, min, files);
    if (!hit) return null;
    const submodules = new Map<string, string>();
    const full = segs.slice(0, hit.used);
    if (hit.used === segs.length) {
      for (const name of base.names) {
        if (!/^\w+$/.test(name)) continue;
        const sub = probeRustModule(root, [...full, name], files);
        if (sub) submodules.set(name, sub);
      }
    }
    const targets = [hit.file, ...[...submodules.values()].filter((s) => s !== hit.file)];
    return submodules.size ? { ...base, targets, submodules } : { ...base, targets };
  };
  if (scope) return attempt([...scope, ...rest], scope.length) ?? { ...base, unresolved: 'not_found' };
  // `mod foo;` or `use foo::bar`: a child of the current module, then of the crate root (2018 paths).
  return (
    attempt([...here, ...parts], here.length + 1) ??
    attempt(parts, 1) ?? { ...base, unresolved: 'external' }
  );
}
