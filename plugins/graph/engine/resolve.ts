/**
 * Name and import resolution. Imports: a specifier as written → workspace files, per language
 * (TS/JS relative + tsconfig paths, Python absolute/relative, Rust crate/super/self/mod, Go via
 * go.mod, Java via source-root suffix). Names: a callee or type name → graph nodes, by the
 * precedence documented in docs/graph-model.md ("Resolving names").
 */
import { posix } from 'node:path';
import type { ExtractedCall, ExtractedImport, Language } from './extraction.ts';
import type { GraphNode, NodeKind } from './graph.ts';

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
  submodules: Map<string, string>;
  /** Local name bound to the whole module, if the source gives one. */
  alias?: string;
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

function dirOf(path: string): string {
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
    submodules: new Map(),
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
  if (dots > 0) {
    let dir = dirOf(fromPath);
    for (let i = 1; i < dots; i++) dir = dirOf(dir);
    const target = restPath ? joinRel(dir, restPath) : dir;
    packageDir = target;
    // `from . import x` names the package itself: its __init__, never a sibling `pkg.py`.
    modulePath = restPath ? probePythonModule(target, files) : probePythonPackage(dir, files);
  } else {
    const roots = [pythonPackageRoot(fromPath, files, cache), ...PYTHON_SOURCE_ROOTS];
    const seen = new Set<string>();
    for (const root of roots) {
      if (seen.has(root)) continue;
      seen.add(root);
      const target = joinRel(root, restPath);
      const hit = probePythonModule(target, files);
      if (hit) {
        modulePath = hit;
        packageDir = target;
        break;
      }
    }
  }
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
  return { ...base, targets, submodules };
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
    return { ...base, targets, submodules };
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

// ---------------------------------------------------------------------------------------------
// Names

/** Symbol tables the name resolver reads (implemented by the graph builder). */
export interface SymbolTables {
  /** Node index of the symbol with this qualified name in a file, or -1. */
  symbolIn(path: string, qualifiedName: string): number;
  /** Node indices of all symbols with this short name in the workspace. */
  named(name: string): readonly number[];
  /** Node data. */
  node(index: number): GraphNode;
  /** Resolved parent classes/interfaces of a class-like node (for inherited members). */
  parentsOf(index: number): readonly number[];
}

/** What a file can see: its resolved imports, turned into lookups. */
export interface FileScope {
  path: string;
  language: Language;
  /** Receiver alias → files (`os.path`, `pkg`, `mod` from `from x import mod`). */
  moduleAliases: Map<string, string[]>;
  /** Imported name → files that should define it. */
  importedNames: Map<string, string[]>;
  /** Files imported with a wildcard. */
  wildcardFiles: string[];
  /** Go: other files of the same package directory. */
  packageFiles: string[];
}

/** Resolution outcome: target nodes and a confidence multiplier for the edge weight. */
export interface NameResolution {
  targets: number[];
  confidence: number;
  /** True when the answer depended on the workspace-wide name table (for incremental invalidation). */
  global: boolean;
}

const NONE: NameResolution = { targets: [], confidence: 0, global: false };
const SELF_RECEIVERS = new Set(['self', 'this', 'cls', 'Self', 'me']);
const CALLABLE_KINDS: ReadonlySet<NodeKind> = new Set(['function', 'class', 'method', 'type']);
const TYPE_KINDS: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
const CLASS_LIKE: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
/** More candidates than this for a bare global name means "too ambiguous to link". */
const MAX_AMBIGUOUS = 3;

/** Builds the lookups a file's calls and references resolve through. */
export function buildFileScope(path: string, language: Language, imports: readonly ResolvedImport[], sameDirFiles: readonly string[]): FileScope {
  const moduleAliases = new Map<string, string[]>();
  const importedNames = new Map<string, string[]>();
  const wildcardFiles: string[] = [];
  const add = (m: Map<string, string[]>, k: string, v: readonly string[]): void => {
    const cur = m.get(k);
    if (cur) {
      for (const x of v) if (!cur.includes(x)) cur.push(x);
    } else m.set(k, [...v]);
  };
  for (const imp of imports) {
    if (imp.targets.length === 0) continue;
    const subs = new Set(imp.submodules.values());
    const primary = imp.targets.filter((t) => !subs.has(t));
    const moduleTargets = primary.length ? primary : imp.targets;
    if (imp.alias) {
      // `import numpy as np`, `import * as ns from`, Go `f "fmt"`: the module under a local name.
      add(moduleAliases, imp.alias, moduleTargets);
      if (imp.names.every((n) => n === '*')) continue;
    } else if (imp.names.length === 0) {
      bindBareImport(imp.specifier, language, moduleTargets, (k, v) => add(moduleAliases, k, v), (k, v) => add(importedNames, k, v));
    }
    for (const raw of imp.names) {
      const star = /^\*\s+as\s+([\w$]+)$/.exec(raw);
      if (star) {
        add(moduleAliases, star[1], moduleTargets);
        continue;
      }
      if (raw === '*') {
        for (const t of moduleTargets) if (!wildcardFiles.includes(t)) wildcardFiles.push(t);
        continue;
      }
      const local = raw.replace(/^.*\s+as\s+/, '').trim();
      const orig = raw.replace(/\s+as\s+.*$/, '').trim();
      const sub = imp.submodules.get(orig);
      if (sub) add(moduleAliases, local, [sub]);
      else {
        add(importedNames, local, moduleTargets);
        // An aliased import still lets a call be matched to the symbol under its declared name.
        if (orig !== local) add(importedNames, orig, moduleTargets);
      }
    }
  }
  const packageFiles = language === 'go' ? sameDirFiles.filter((f) => f !== path && f.endsWith('.go')) : [];
  return { path, language, moduleAliases, importedNames, wildcardFiles, packageFiles };
}

/** What a bare import (no names) binds in the importing file, per language. */
function bindBareImport(
  specifier: string,
  language: Language,
  targets: readonly string[],
  alias: (name: string, files: readonly string[]) => void,
  name: (name: string, files: readonly string[]) => void,
): void {
  const last = specifier.split(/[./:\\]+/).filter(Boolean).pop();
  switch (language) {
    case 'python':
      alias(specifier, targets); // `import a.b` is used as `a.b.f()`
      break;
    case 'go':
      if (last) alias(last, targets); // the package name is the last path segment by convention
      break;
    case 'java':
    case 'rust':
      // `import a.b.C` / `use crate::a::Foo` bind a type; `use crate::a::m` binds a module.
      if (last && /^[A-Z]/.test(last)) name(last, targets);
      else if (last) alias(last, targets);
      break;
    default:
      break; // a JS/TS side-effect import binds nothing
  }
}

const chains = new Map<string, string[]>();

/** `A.b.c` → [`A.b.c`, `A.b`, `A`] (memoised: the same callers recur for every call they make). */
function lexicalChain(caller: string | null): string[] {
  if (!caller) return [];
  let out = chains.get(caller);
  if (out) return out;
  out = [];
  for (let q = caller; q; q = q.slice(0, Math.max(0, q.lastIndexOf('.')))) out.push(q);
  if (chains.size > 50_000) chains.clear();
  chains.set(caller, out);
  return out;
}

function inKinds(tables: SymbolTables, idx: number, kinds: ReadonlySet<NodeKind>): boolean {
  return kinds.has(tables.node(idx).kind);
}

/** Symbols named `name` declared at the top of any of the files. */
function topLevelIn(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>): number[] {
  const out: number[] = [];
  for (const f of files) {
    const i = tables.symbolIn(f, name);
    if (i >= 0 && inKinds(tables, i, kinds)) out.push(i);
  }
  return out;
}

/** The class-like symbol enclosing a caller, by walking its qualified name up. */
function enclosingClass(path: string, caller: string | null, tables: SymbolTables): number {
  for (const q of lexicalChain(caller)) {
    const i = tables.symbolIn(path, q);
    if (i >= 0 && CLASS_LIKE.has(tables.node(i).kind)) return i;
  }
  return -1;
}

/** A member `name` of a class node or of its ancestors (bounded depth). */
function memberOf(classIdx: number, name: string, tables: SymbolTables, depth = 0, seen = new Set<number>()): number {
  if (seen.has(classIdx) || depth > 4) return -1;
  seen.add(classIdx);
  const cls = tables.node(classIdx);
  const hit = tables.symbolIn(cls.path, `${cls.qualifiedName}.${name}`);
  if (hit >= 0) return hit;
  for (const p of tables.parentsOf(classIdx)) {
    const h = memberOf(p, name, tables, depth + 1, seen);
    if (h >= 0) return h;
  }
  return -1;
}

/** Picks among workspace-wide candidates: unique → 0.7; else prefer one in the same directory; else up to 3 at 0.3. */
function fromGlobal(candidates: number[], fromPath: string, tables: SymbolTables): NameResolution {
  if (candidates.length === 0) return { ...NONE, global: true };
  if (candidates.length === 1) return { targets: candidates, confidence: 0.7, global: true };
  const dir = dirOf(fromPath);
  const near = candidates.filter((c) => dirOf(tables.node(c).path) === dir);
  if (near.length === 1) return { targets: near, confidence: 0.6, global: true };
  if (candidates.length <= MAX_AMBIGUOUS) return { targets: candidates, confidence: 0.3, global: true };
  return { ...NONE, global: true };
}

/** Resolves a bare name (callee without receiver, type name) from a position in a file. */
function resolveBareName(name: string, from: string | null, scope: FileScope, tables: SymbolTables, kinds: ReadonlySet<NodeKind>, allowMethods: boolean): NameResolution {
  // 1. Same file, innermost lexical scope first. A class body is a scope for bare names only in
  // Java (implicit `this`); elsewhere members need a receiver, so class scopes are skipped.
  for (const q of lexicalChain(from)) {
    if (scope.language !== 'java') {
      const holder = tables.symbolIn(scope.path, q);
      if (holder >= 0 && CLASS_LIKE.has(tables.node(holder).kind)) continue;
    }
    const i = tables.symbolIn(scope.path, `${q}.${name}`);
    if (i >= 0 && inKinds(tables, i, kinds)) return { targets: [i], confidence: 1, global: false };
  }
  const top = tables.symbolIn(scope.path, name);
  if (top >= 0 && inKinds(tables, top, kinds)) return { targets: [top], confidence: 1, global: false };
  // Go: the package is the scope, so sibling files count as the same file.
  const pkg = topLevelIn(scope.packageFiles, name, tables, kinds);
  if (pkg.length) return { targets: pkg.slice(0, MAX_AMBIGUOUS), confidence: pkg.length === 1 ? 1 : 0.5, global: false };
  // 2. Names imported into the file, then wildcard imports.
  const imported = scope.importedNames.get(name);
  if (imported) {
    const hits = topLevelIn(imported, name, tables, kinds);
    if (hits.length) return { targets: hits.slice(0, MAX_AMBIGUOUS), confidence: hits.length === 1 ? 1 : 0.5, global: false };
  }
  const wild = topLevelIn(scope.wildcardFiles, name, tables, kinds);
  if (wild.length) return { targets: wild.slice(0, MAX_AMBIGUOUS), confidence: wild.length === 1 ? 0.9 : 0.45, global: false };
  // 4. A workspace-wide name, only for things that are visible from elsewhere.
  const all = tables.named(name).filter((i) => {
    const n = tables.node(i);
    if (!kinds.has(n.kind) || n.exported === false) return false;
    return allowMethods || n.kind !== 'method';
  });
  return fromGlobal(all, scope.path, tables);
}

/** Resolves a call to function/method/class nodes. */
export function resolveCall(call: ExtractedCall, scope: FileScope, tables: SymbolTables): NameResolution {
  const callee = call.callee;
  const recv = call.receiver?.trim();
  if (!recv) return resolveBareName(callee, call.caller, scope, tables, CALLABLE_KINDS, false);
  // 3. self/this/cls: a member of the enclosing class or of its ancestors.
  if (SELF_RECEIVERS.has(recv)) {
    const cls = enclosingClass(scope.path, call.caller, tables);
    if (cls >= 0) {
      const m = memberOf(cls, callee, tables);
      if (m >= 0) return { targets: [m], confidence: 1, global: false };
    }
    return unknownReceiver(callee, scope, tables);
  }
  if (recv === 'super' || recv.startsWith('super(') || recv === 'base') {
    const cls = enclosingClass(scope.path, call.caller, tables);
    if (cls >= 0) {
      for (const p of tables.parentsOf(cls)) {
        const m = memberOf(p, callee, tables);
        if (m >= 0) return { targets: [m], confidence: 1, global: false };
      }
    }
    return NONE;
  }
  // 2. A module imported into the file used as a qualifier (`os.path.join`, `pkg.Func`, `mod::f`).
  const moduleFiles = scope.moduleAliases.get(recv);
  if (moduleFiles) {
    const hits = topLevelIn(moduleFiles, callee, tables, CALLABLE_KINDS);
    if (hits.length) return { targets: hits.slice(0, MAX_AMBIGUOUS), confidence: hits.length === 1 ? 1 : 0.5, global: false };
    return NONE;
  }
  // A class used as a qualifier: static call, `Type::new()`, or a fresh instance `Foo().bar()`.
  const classRecv = /^([A-Z]\w*)(?:\(.*\))?$/.exec(recv);
  if (classRecv) {
    const cls = resolveBareName(classRecv[1], call.caller, scope, tables, CLASS_LIKE, false);
    if (cls.targets.length === 1) {
      const m = memberOf(cls.targets[0], callee, tables);
      if (m >= 0) return { targets: [m], confidence: Math.min(1, cls.confidence + 0.2), global: cls.global };
    }
    if (cls.global) return { ...unknownReceiver(callee, scope, tables), global: true };
  }
  return unknownReceiver(callee, scope, tables);
}

/** `obj.method()` with an unknown receiver type: link only a method name that is unique. */
function unknownReceiver(callee: string, scope: FileScope, tables: SymbolTables): NameResolution {
  const methods = tables.named(callee).filter((i) => tables.node(i).kind === 'method');
  const local = methods.filter((i) => tables.node(i).path === scope.path);
  if (local.length === 1) return { targets: local, confidence: 0.5, global: true };
  if (methods.length === 1) return { targets: methods, confidence: 0.4, global: true };
  return { ...NONE, global: true };
}

/** Resolves a type name (reference, base class, implemented interface) to class/interface/type nodes. */
export function resolveTypeName(name: string, from: string | null, scope: FileScope, tables: SymbolTables): NameResolution {
  const last = name.split(/[.:]+/).filter(Boolean).pop() ?? name;
  return resolveBareName(last, from, scope, tables, TYPE_KINDS, false);
}

/**
 * Resolves a symbol named in prose (`CodeGraph.finalize`, `seek()`, `crate::a::b`) to nodes:
 * a qualifier narrows candidates by qualified name or file stem; unique → 1, up to 3 → 0.5 each.
 */
export function resolveMention(text: string, tables: SymbolTables): NameResolution {
  const clean = text.replace(/\(.*\)$/, '').replace(/[`'"]/g, '').trim();
  const parts = clean.split(/\.|::|#/).filter(Boolean);
  const name = parts.pop();
  if (!name || !/^[A-Za-z_$][\w$]*$/.test(name)) return NONE;
  let cands = tables.named(name).filter((i) => tables.node(i).kind !== 'section');
  if (parts.length) {
    const qual = parts.join('.');
    const narrowed = cands.filter((i) => {
      const n = tables.node(i);
      const q = n.qualifiedName ?? '';
      const stem = posix.basename(n.path).replace(/\.[^.]+$/, '');
      return q.endsWith(`${qual}.${name}`) || q === `${qual}.${name}` || stem === parts[parts.length - 1];
    });
    cands = narrowed;
  }
  if (cands.length === 0) return { ...NONE, global: true };
  if (cands.length === 1) return { targets: cands, confidence: 1, global: true };
  if (cands.length <= MAX_AMBIGUOUS) return { targets: cands, confidence: 0.5, global: true };
  return { ...NONE, global: true };
}
