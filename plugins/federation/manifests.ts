/**
 * What a repository is called as a package and which packages it depends on, read from its root
 * manifests: package.json (name, dependencies of every kind), go.mod (module, require) and go.work
 * (`use` folders), pyproject.toml (`[project]` and Poetry names; PEP 621 lists, optional and group
 * dependencies, Poetry tables), the root's pip requirements files (`*requirements*.txt`) and
 * Cargo.toml (`[package]`/`[lib]` names; dependency tables of every
 * kind, renames through `package`). TOML is read with smol-toml.
 *
 * Names are compared the way each ecosystem does: Python's `acme-utils`, `Acme_Utils` and
 * `acme.utils` are one distribution (PEP 503), Cargo's `core-lib` and `core_lib` one crate. What the
 * code writes in its imports is kept beside each name: a Python distribution's packages, a crate's
 * name with `_` for `-`, or the local name a dependency was given (an npm key, a renamed crate).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';

export type Ecosystem = 'npm' | 'go' | 'python' | 'cargo';

/** A package the repository publishes: its name and the roots code imports it by. */
export interface PublishedPackage {
  ecosystem: Ecosystem;
  name: string;
  imports: string[];
}

/** A package the repository depends on: where it is declared, and what ties it to a sibling. */
export interface Dependency {
  ecosystem: Ecosystem;
  name: string;
  file: string;
  line: number;
  /** The roots this repository's code imports it by, when the manifest names them (an npm key, a crate's local name). */
  imports?: string[];
  /** The folder a path dependency points at (absolute): `file:../lib`, `{ path = "../lib" }`, go.work `use`. */
  path?: string;
}

export interface RepoManifest {
  /** Package names the repository publishes. */
  names: string[];
  packages: PublishedPackage[];
  dependencies: Dependency[];
}

function read(root: string, file: string): string | null {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return null;
  }
}

function toml(text: string): Record<string, unknown> | null {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch {
    return null; // a broken manifest names nothing
  }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first line holding `token` as a whole name (`example.com/lib` is not found in `example.com/library`), else 1. */
export function lineOfToken(text: string, token: string, skip?: RegExp): number {
  const re = new RegExp(`(?:^|[^\\w./@-])${escape(token)}(?![\\w./-])`);
  const lines = text.split('\n');
  const i = lines.findIndex((l) => re.test(l) && !skip?.test(l));
  return i + 1 || 1;
}

/** The key two names of one ecosystem share when the ecosystem treats them as one package. */
export function packageKey(ecosystem: Ecosystem, name: string): string {
  if (ecosystem === 'python') return `python:${name.toLowerCase().replace(/[-_.]+/g, '-')}`;
  if (ecosystem === 'cargo') return `cargo:${name.replace(/_/g, '-')}`;
  return `${ecosystem}:${name}`;
}

const table = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
/** The distribution a PEP 508 requirement names (`acme-utils[x]>=1 ; python_version > "3"` → acme-utils). */
const requirementName = (req: string) => /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req)?.[1];
/** A PEP 508 direct reference to a local folder (`acme @ file:../lib`). */
const requirementPath = (req: string) => /@\s*file:(?:\/\/)?(\S+)/.exec(req)?.[1];

function npm(root: string, names: string[], packages: PublishedPackage[], deps: Dependency[]): void {
  const text = read(root, 'package.json');
  if (!text) return;
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof j.name === 'string') {
    names.push(j.name);
    packages.push({ ecosystem: 'npm', name: j.name, imports: [j.name] });
  }
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dep, spec] of Object.entries(table(j[field]))) {
      // `"alias": "npm:real@1"` installs `real` under the name the code imports.
      const real = typeof spec === 'string' ? /^npm:((?:@[^/]+\/)?[^@]+)/.exec(spec)?.[1] : undefined;
      const local = typeof spec === 'string' ? /^(?:file|link):(.+)$/.exec(spec)?.[1] : undefined;
      deps.push({ ecosystem: 'npm', name: real ?? dep, file: 'package.json', line: lineOfToken(text, `"${dep}"`), imports: [dep], ...(local ? { path: resolve(root, local) } : {}) });
    }
  }
}

function go(root: string, names: string[], packages: PublishedPackage[], deps: Dependency[]): void {
  const gomod = read(root, 'go.mod');
  if (gomod) {
    const m = /^module\s+(\S+)/m.exec(gomod);
    if (m) {
      names.push(m[1]);
      packages.push({ ecosystem: 'go', name: m[1], imports: [m[1]] });
    }
    for (const r of gomod.matchAll(/^\s*(?:require\s+)?([\w.-]+\.[\w.-]+\/\S+)\s+v\S+/gm)) {
      deps.push({ ecosystem: 'go', name: r[1], file: 'go.mod', line: lineOfToken(gomod, r[1], /^\s*module\s/) });
    }
  }
  // A go.work's `use` folders are modules this one builds with, `require` or not.
  for (const u of goWorkUses(root)) deps.push({ ecosystem: 'go', name: '', file: 'go.work', line: u.line, path: resolve(root, u.dir) });
}

/** The folders a root's go.work `use`s (the root itself left out), with their lines. */
export function goWorkUses(root: string): { dir: string; line: number }[] {
  const gowork = read(root, 'go.work');
  const out: { dir: string; line: number }[] = [];
  let inUse = false;
  (gowork ?? '').split('\n').forEach((raw, i) => {
    const l = raw.replace(/\/\/.*$/, '').trim();
    if (/^use\s*\($/.test(l)) return void (inUse = true);
    if (inUse && l === ')') return void (inUse = false);
    const dir = (inUse ? l : /^use\s+(\S+)$/.exec(l)?.[1])?.replace(/^"|"$/g, '');
    if (dir && dir !== '.' && dir !== './') out.push({ dir, line: i + 1 });
  });
  return out;
}

function python(root: string, names: string[], packages: PublishedPackage[], deps: Dependency[]): void {
  const text = read(root, 'pyproject.toml');
  const t = text ? toml(text) : null;
  if (!text || !t) return;
  const project = table(t.project);
  const tool = table(t.tool);
  const poetry = table(tool.poetry);
  const name = typeof project.name === 'string' ? project.name : typeof poetry.name === 'string' ? poetry.name : undefined;
  if (name) {
    names.push(name);
    // What code imports: the packages the build config lists, else the distribution's name as an identifier.
    const listed = [
      ...strings(table(tool.setuptools).packages),
      ...(Array.isArray(poetry.packages) ? poetry.packages.map((p) => table(p).include).filter((x): x is string => typeof x === 'string') : []),
    ].map((p) => p.split(/[./]/)[0]);
    packages.push({ ecosystem: 'python', name, imports: [...new Set([...listed, name.toLowerCase().replace(/[-.]+/g, '_')])] });
  }
  const add = (dep: string, path?: string) => {
    if (dep.toLowerCase() === 'python') return;
    deps.push({ ecosystem: 'python', name: dep, file: 'pyproject.toml', line: lineOfToken(text, dep), ...(path ? { path: resolve(root, path) } : {}) });
  };
  const requirements = [...strings(project.dependencies), ...Object.values(table(project['optional-dependencies'])).flatMap(strings), ...Object.values(table(t['dependency-groups'])).flatMap(strings)];
  for (const req of requirements) {
    const dep = requirementName(req);
    if (dep) add(dep, requirementPath(req));
  }
  const poetryTables = [poetry.dependencies, poetry['dev-dependencies'], ...Object.values(table(poetry.group)).map((g) => table(g).dependencies)];
  const sources = table(table(tool.uv).sources);
  for (const tbl of poetryTables) {
    for (const [dep, spec] of Object.entries(table(tbl))) add(dep, typeof table(spec).path === 'string' ? (table(spec).path as string) : undefined);
  }
  for (const [dep, spec] of Object.entries(sources)) if (typeof table(spec).path === 'string') add(dep, table(spec).path as string);
}

/** The root's pip requirements files (`requirements.txt`, `requirements-dev.txt`, `dev-requirements.txt`), sorted. */
function requirementFiles(root: string): string[] {
  try {
    return readdirSync(root)
      .filter((f) => f.toLowerCase().endsWith('.txt') && f.toLowerCase().includes('requirements'))
      .sort();
  } catch {
    return [];
  }
}

/** Dependencies a pip requirements file lists: one requirement or local folder (`-e ../lib`) a line; other options (`-r`, `--hash`), comments and URLs name none. */
function requirements(root: string, deps: Dependency[]): void {
  for (const file of requirementFiles(root)) {
    const text = read(root, file);
    if (!text) continue;
    text.split('\n').forEach((raw, i) => {
      const line = raw.replace(/(?:^|\s)#.*$/, '').trim();
      // A local folder installed by path (`-e ../lib`, `../lib`): a dependency on whatever that folder publishes.
      const local = /^(?:-e\s+|--editable[=\s]\s*)?(\.{1,2}\/[^\s;]*)/.exec(line)?.[1];
      if (local) return void deps.push({ ecosystem: 'python', name: '', file, line: i + 1, path: resolve(root, local) });
      if (!line || line.startsWith('-') || /^[a-z+]+:\/\//i.test(line)) return;
      const dep = requirementName(line);
      const path = requirementPath(line);
      if (dep && dep.toLowerCase() !== 'python') deps.push({ ecosystem: 'python', name: dep, file, line: i + 1, ...(path ? { path: resolve(root, path) } : {}) });
    });
  }
}

function cargo(root: string, names: string[], packages: PublishedPackage[], deps: Dependency[]): void {
  const text = read(root, 'Cargo.toml');
  const t = text ? toml(text) : null;
  if (!text || !t) return;
  const pkg = table(t.package);
  if (typeof pkg.name === 'string') {
    names.push(pkg.name);
    const lib = table(t.lib).name;
    packages.push({ ecosystem: 'cargo', name: pkg.name, imports: [typeof lib === 'string' ? lib : pkg.name.replace(/-/g, '_')] });
  }
  const tables = [t.dependencies, t['dev-dependencies'], t['build-dependencies'], table(t.workspace).dependencies, ...Object.values(table(t.target)).flatMap((x) => [table(x).dependencies, table(x)['dev-dependencies']])];
  for (const tbl of tables) {
    for (const [local, spec] of Object.entries(table(tbl))) {
      // `alias = { package = "real-name" }`: the code writes the alias; the crate is `real-name`.
      const real = typeof table(spec).package === 'string' ? (table(spec).package as string) : local;
      const path = typeof table(spec).path === 'string' ? resolve(root, table(spec).path as string) : undefined;
      // The code writes a renamed crate by its local name; any other by the crate's own (lib) name.
      deps.push({ ecosystem: 'cargo', name: real, file: 'Cargo.toml', line: lineOfToken(text, local), ...(real !== local ? { imports: [local.replace(/-/g, '_')] } : {}), ...(path ? { path } : {}) });
    }
  }
}

/** The manifest facts of a repository root. */
export function readManifest(root: string): RepoManifest {
  const names: string[] = [];
  const packages: PublishedPackage[] = [];
  const dependencies: Dependency[] = [];
  for (const reader of [npm, go, python, cargo]) reader(root, names, packages, dependencies);
  requirements(root, dependencies);
  return { names, packages, dependencies };
}

/** One package of B that A depends on: the dependency's declaration and the roots A's code imports it by. */
export interface PackageUse {
  dependency: Dependency;
  pkg: PublishedPackage;
  imports: string[];
}

/**
 * The packages of `b` (rooted at `bRoot`) that `a` depends on: by name as the ecosystem compares
 * names, or by a path dependency pointing at `b`'s folder. A dependency matched by path ties to
 * every package `b` publishes in that ecosystem (a go.work `use` names no module).
 */
export function packagesUsed(a: RepoManifest, b: RepoManifest, bRoot: string): PackageUse[] {
  const out: PackageUse[] = [];
  const root = resolve(bRoot);
  for (const pkg of b.packages) {
    const key = packageKey(pkg.ecosystem, pkg.name);
    const dependency = a.dependencies.find((d) => d.ecosystem === pkg.ecosystem && ((d.name && packageKey(d.ecosystem, d.name) === key) || d.path === root));
    if (dependency) out.push({ dependency, pkg, imports: dependency.imports ?? pkg.imports });
  }
  return out;
}
