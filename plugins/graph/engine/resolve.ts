/**
 * Import resolution: a specifier as written → workspace files, per language (TS/JS relative and
 * tsconfig paths, Python absolute/relative, Rust crate/super/self/mod, Go via go.mod, Java via
 * source-root suffix). Name resolution lives in resolve-names.ts. Rules: docs/graph-model.md.
 */
import { posix } from 'node:path';
import type { ExtractedImport, Language } from './extraction.ts';

/** What the resolver may ask about the set of ingested files. */
export interface PathIndex {
  /** True when an ingested file has this exact path. */
  has(path: string): boolean;
  /** Ingested files directly in a directory ('' is the root). */
  filesInDir(dir: string): readonly string[];
  /** Ingested files with this basename. */
  filesNamed(basename: string): readonly string[];
  /** Every directory holding at least one ingested file. */
  directories(): Iterable<string>;
}

/** Workspace-level settings read from config files (tsconfig.json, go.mod). */
export interface ResolverConfig {
  /** tsconfig `compilerOptions.paths`, with the directory patterns are relative to. */
  tsPaths?: { baseDir: string; paths: Record<string, string[]> };
  /** tsconfig `compilerOptions.baseUrl` as a workspace-relative directory. */
  tsBaseUrl?: string;
  /** One entry per go.mod: its directory and module path. */
  goModules: { dir: string; module: string }[];
}

/** An import after resolution: the files it names, and submodules reached through its names. */
export interface ResolvedImport {
  specifier: string;
  line: number;
  names: string[];
  /** Workspace files the specifier resolves to (several for a Go package or Java wildcard). */
  targets: string[];
  /** Imported names that are themselves modules (`from pkg import mod`, `use a::{b}`): name → file. */
  submodules?: Map<string, string>;
  /** Local name bound to the whole module, if the source gives one. */
  alias?: string;
  /** True when only a prefix resolved (`import os.path` → os.py); the full module may appear later. */
  partial?: boolean;
  /** Why it did not resolve: a package outside the workspace, or a local-looking path that is missing. */
  unresolved?: 'external' | 'not_found';
}

/** Empty resolver settings. */
export function emptyResolverConfig(): ResolverConfig {
  return { goModules: [] };
}

const TS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'],
  '.jsx': ['.tsx'],
  '.mjs': ['.mts'],
  '.cjs': ['.cts'],
};
/** Directory prefixes searched for Python absolute imports besides the file's own package root. */
const PYTHON_SOURCE_ROOTS = ['', 'src', 'Lib', 'lib', 'python'];
/** A Go package or Java wildcard with more files than this resolves to its first files only. */
const MAX_PACKAGE_TARGETS = 64;

/** The directory of a workspace-relative path ('' for the root). */
export function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

function joinRel(...parts: string[]): string {
  const j = posix.normalize(posix.join(...parts));
  return j === '.' ? '' : j.replace(/\/$/, '');
}

function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith('../');
}

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

/** Per-ingest memo of directory facts (package roots, crate roots) shared by all resolutions. */
export class ResolveCache {
  readonly pythonRoot = new Map<string, string>();
  readonly crateRoot = new Map<string, string>();
  /** (package root, absolute module) → what it resolved to. */
  readonly pythonAbsolute = new Map<string, PythonHit>();
  /** Top-level Python package name → directories it sits in (found from `__init__.py` files). */
  pythonPackages: Map<string, string[]> | null = null;
}

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
  for (const e of TS_EXTENSIONS) if (files.has(`${baseNoExt}/index${e}`)) return `${baseNoExt}/index${e}`;
  return null;
}

function resolveScript(base: ResolvedImport, fromPath: string, files: PathIndex, config: ResolverConfig): ResolvedImport {
  const spec = base.specifier.split(/[?#]/)[0];
  if (spec.startsWith('./') || spec.startsWith('../') || spec === '.' || spec === '..') {
    const rel = joinRel(dirOf(fromPath), spec);
    const hit = escapes(rel) ? null : probeScript(rel, files);
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

function resolvePython(base: ResolvedImport, fromPath: string, files: PathIndex, cache: ResolveCache): ResolvedImport {
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
    for (const name of base.names) {
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

function resolveRust(base: ResolvedImport, fromPath: string, files: PathIndex, cache: ResolveCache): ResolvedImport {
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

// ---------------------------------------------------------------------------------------------
// Go

function resolveGo(base: ResolvedImport, files: PathIndex, config: ResolverConfig): ResolvedImport {
  const spec = base.specifier;
  for (const mod of config.goModules) {
    if (spec !== mod.module && !spec.startsWith(`${mod.module}/`)) continue;
    const dir = joinRel(mod.dir, spec.slice(mod.module.length).replace(/^\//, ''));
    const targets = files
      .filesInDir(dir)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .slice(0, MAX_PACKAGE_TARGETS);
    return targets.length ? { ...base, targets } : { ...base, unresolved: 'not_found' };
  }
  return { ...base, unresolved: 'external' };
}

// ---------------------------------------------------------------------------------------------
// Java

function resolveJava(base: ResolvedImport, files: PathIndex): ResolvedImport {
  const parts = base.specifier.replace(/^static\s+/, '').split('.').filter((p) => p !== '*');
  const wildcard = base.specifier.endsWith('.*') || base.names.includes('*');
  const classFile = findJavaClass(parts, files);
  if (classFile && (!wildcard || /^[A-Z]/.test(parts[parts.length - 1] ?? ''))) return { ...base, targets: [classFile] };
  if (wildcard) {
    const pkg = parts.join('/');
    // The package directory under any source root: a directory whose path ends with the package path.
    for (const dir of files.directories()) {
      if (dir !== pkg && !dir.endsWith(`/${pkg}`)) continue;
      const targets = files.filesInDir(dir).filter((f) => f.endsWith('.java')).slice(0, MAX_PACKAGE_TARGETS);
      if (targets.length) return { ...base, targets };
    }
    return { ...base, unresolved: 'external' };
  }
  return { ...base, unresolved: 'external' };
}

/** `a.b.C` (or a static member `a.b.C.m`) → the file of the longest class path, under any source root. */
function findJavaClass(parts: string[], files: PathIndex): string | null {
  for (let k = parts.length; k >= 1; k--) {
    const suffix = `${parts.slice(0, k).join('/')}.java`;
    const hit = files.filesNamed(`${parts[k - 1]}.java`).find((f) => f === suffix || f.endsWith(`/${suffix}`));
    if (hit) return hit;
  }
  return null;
}
