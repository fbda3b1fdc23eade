/** Python import resolution: absolute imports under the package root or a source root, relative imports, submodules. */
import { posix } from 'node:path';
import { dirOf, escapes, joinRel, type PathIndex, type ResolveCache, type ResolvedImport } from './resolve-base.ts';

/** Directory prefixes searched for Python absolute imports besides the file's own package root. */
const PYTHON_SOURCE_ROOTS = ['', 'src', 'Lib', 'lib', 'python'];
/** Every top-level Python package of the workspace and the directory holding it. */
function pythonPackageIndex(files: PathIndex, cache: ResolveCache): Map<string, string[]> {
  if (cache.pythonPackages) return cache.pythonPackages;
  const index = new Map<string, string[]>();
  for (const dir of files.directories()) {
    if (dir === '' || !files.has(`${dir}/__init__.py`)) continue;
    const parent = dirOf(dir);
    if (parent !== '' && files.has(`${parent}/__init__.py`)) continue; // not top-level
    const name = posix.basename(dir);
    const roots = index.get(name);
    if (roots) roots.push(parent);
    else index.set(name, [parent]);
  }
  cache.pythonPackages = index;
  return index;
}

// ---------------------------------------------------------------------------------------------
// Python

function probePythonModule(dir: string, files: PathIndex): string | null {
  if (dir === '' || escapes(dir)) return null;
  for (const cand of [`${dir}.py`, `${dir}.pyi`, `${dir}/__init__.py`, `${dir}/__init__.pyi`]) if (files.has(cand)) return cand;
  return null;
}

function probePythonPackage(dir: string, files: PathIndex): string | null {
  if (escapes(dir)) return null;
  for (const cand of [joinRel(dir, '__init__.py'), joinRel(dir, '__init__.pyi')]) if (files.has(cand)) return cand;
  return null;
}

/** The directory a file's top-level package lives in: walk up while the directory has __init__.py. */
function pythonPackageRoot(fromPath: string, files: PathIndex, cache: ResolveCache): string {
  const start = dirOf(fromPath);
  const memo = cache.pythonRoot.get(start);
  if (memo !== undefined) return memo;
  let dir = start;
  while (dir !== '' && files.has(`${dir}/__init__.py`)) dir = dirOf(dir);
  cache.pythonRoot.set(start, dir);
  return dir;
}

export function resolvePython(base: ResolvedImport, fromPath: string, files: PathIndex, cache: ResolveCache): ResolvedImport {
  const spec = base.specifier;
  const dots = /^\.*/.exec(spec)![0].length;
  const rest = spec.slice(dots);
  const restPath = rest ? rest.split('.').join('/') : '';
  let modulePath: string | null = null;
  let packageDir: string | null = null;
  let partial = false;
  if (dots > 0) {
    let dir = dirOf(fromPath);
    for (let i = 1; i < dots; i++) dir = dirOf(dir);
    const target = restPath ? joinRel(dir, restPath) : dir;
    packageDir = target;
    // `from . import x` names the package itself: its __init__, never a sibling `pkg.py`.
    modulePath = restPath ? probePythonModule(target, files) : probePythonPackage(dir, files);
  } else {
    // Absolute imports repeat (`os`, `sys`) and only depend on the importer's package root: memoise.
    const pkgRoot = pythonPackageRoot(fromPath, files, cache);
    const memoKey = `${pkgRoot}\0${rest}`;
    let memo = cache.pythonAbsolute.get(memoKey);
    if (!memo) {
      memo = resolvePythonAbsolute(rest, restPath, pkgRoot, files, cache);
      cache.pythonAbsolute.set(memoKey, memo);
    }
    ({ modulePath, packageDir, partial } = memo);
  }
  return finishPython(base, modulePath, packageDir, partial, dots, files);
}

function resolvePythonAbsolute(rest: string, restPath: string, pkgRoot: string, files: PathIndex, cache: ResolveCache): PythonHit {
  // The file's own package root, the usual source roots, then wherever a package of that name lives.
  const head = rest.split('.')[0];
  const roots = [...new Set([pkgRoot, ...PYTHON_SOURCE_ROOTS, ...(pythonPackageIndex(files, cache).get(head) ?? [])])];
  for (const root of roots) {
    const target = joinRel(root, restPath);
    const hit = probePythonModule(target, files);
    if (hit) return { modulePath: hit, packageDir: target, partial: false };
  }
  // `import os.path`: `path` is an attribute of os, and importing a.b.c imports a and a.b too;
  // link to the longest prefix that is a module in the workspace.
  const segs = rest.split('.');
  for (let k = segs.length - 1; k >= 1; k--) {
    for (const root of roots) {
      const hit = probePythonModule(joinRel(root, segs.slice(0, k).join('/')), files);
      if (hit) return { modulePath: hit, packageDir: null, partial: true };
    }
  }
  return { modulePath: null, packageDir: null, partial: false };
}

interface PythonHit {
  modulePath: string | null;
  packageDir: string | null;
  partial: boolean;
}

function finishPython(base: ResolvedImport, modulePath: string | null, packageDir: string | null, partial: boolean, dots: number, files: PathIndex): ResolvedImport {
  const submodules = new Map<string, string>();
  if (packageDir !== null) {
    for (const raw of base.names) {
      // `from pkg import mod as alias`: the submodule under its own name (file-scope.ts binds the alias).
      const name = raw.replace(/\s+as\s+.*$/, '').trim();
      if (name === '*' || !/^[A-Za-z_]\w*$/.test(name)) continue;
      const sub = probePythonModule(joinRel(packageDir, name), files);
      if (sub) submodules.set(name, sub);
    }
  }
  const targets = modulePath ? [modulePath] : [];
  for (const s of submodules.values()) if (!targets.includes(s)) targets.push(s);
  if (targets.length === 0) return { ...base, unresolved: dots > 0 ? 'not_found' : 'external' };
  const out: ResolvedImport = { ...base, targets };
  if (submodules.size) out.submodules = submodules;
  if (partial) out.partial = true;
  return out;
}
