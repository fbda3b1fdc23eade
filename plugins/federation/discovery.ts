/**
 * Finding the repositories to federate with: members the workspace declares (package.json and
 * pnpm workspaces, go.work `use`, Cargo `[workspace] members`), folders its own files and manifests
 * point at outside the root (external_references), and — when the parent folder is allowed —
 * sibling folders publishing a package the workspace depends on. A candidate outside the allowed
 * roots is listed (from the workspace's own text) but never read.
 */
import fg from 'fast-glob';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { HostSettings } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { goWorkUses, packagesUsed, readManifest } from './manifests.ts';
import { outsideReferences } from './outside-references.ts';
import { isAllowed } from './roots.ts';

export interface Candidate {
  name: string;
  /** Absolute directory. */
  root: string;
  /** Relative to the workspace root. */
  path: string;
  packages: string[];
  reasons: string[];
  allowed: boolean;
}

const MANIFEST_FILES = ['package.json', 'go.mod', 'pyproject.toml', 'Cargo.toml'];
const hasManifest = (dir: string) => MANIFEST_FILES.some((f) => existsSync(join(dir, f)));

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Member globs the workspace declares, relative to its root. */
function memberGlobs(root: string): string[] {
  const globs: string[] = [];
  const pkg = read(join(root, 'package.json'));
  if (pkg) {
    try {
      const w = (JSON.parse(pkg) as { workspaces?: string[] | { packages?: string[] } }).workspaces;
      globs.push(...(Array.isArray(w) ? w : (w?.packages ?? [])));
    } catch {
      // unreadable package.json: no members from it
    }
  }
  const pnpm = read(join(root, 'pnpm-workspace.yaml'));
  if (pnpm) {
    try {
      globs.push(...(((parseYaml(pnpm) as { packages?: string[] })?.packages ?? []).filter((g) => !g.startsWith('!'))));
    } catch {
      // idem
    }
  }
  for (const u of goWorkUses(root)) globs.push(u.dir);
  const cargo = read(join(root, 'Cargo.toml'));
  const members = cargo && /^\[workspace\][\s\S]*?members\s*=\s*\[([^\]]*)\]/m.exec(cargo);
  if (members) for (const m of members[1].matchAll(/"([^"]+)"/g)) globs.push(m[1]);
  return globs;
}

/** The candidates, at most `max`, allowed ones first. */
export async function discoverRepos(graph: GraphService, settings: Readonly<HostSettings>, max: number, reserved: readonly string[] = []): Promise<Candidate[]> {
  const root = settings.workspaceRoot;
  const found = new Map<string, Candidate>();
  const add = (dir: string, reason: string) => {
    const abs = resolve(dir);
    if (abs === resolve(root)) return;
    const entry = found.get(abs);
    if (entry) {
      if (!entry.reasons.includes(reason)) entry.reasons.push(reason);
      return;
    }
    const allowed = isAllowed(settings, abs);
    // Outside the allowed roots nothing is read, not even whether the folder exists.
    if (allowed && !hasManifest(abs)) return;
    found.set(abs, { name: '', root: abs, path: relative(root, abs).split('\\').join('/'), packages: allowed ? readManifest(abs).names : [], reasons: [reason], allowed });
  };
  for (const glob of memberGlobs(root)) {
    const dirs = glob.startsWith('..') && !isAllowed(settings, resolve(root, glob.split('*')[0])) ? [glob.split('*')[0]] : await fg(glob, { cwd: root, onlyDirectories: true, ignore: ['**/node_modules/**'], deep: 4 });
    for (const d of dirs.slice(0, 200)) add(join(root, d), 'workspace_member');
  }
  for (const ref of await outsideReferences(graph, 2000)) {
    if (ref.target.startsWith('/')) continue;
    // The outside folder: the path up to its first segment below the `..` climb; a climb alone (`require('../..')`) names the enclosing folder.
    const parts = ref.target.split('/');
    const up = parts.findIndex((p) => p !== '..');
    // A file named directly beside the root (../tsconfig.base.json) is no repository.
    if (up >= 0 && (up >= parts.length - (ref.kind === 'manifest' ? 0 : 1) || /\.(?:json|jsonc|ya?ml|toml|md|txt)$/i.test(parts[up]))) continue;
    const top = join(root, parts.slice(0, up < 0 ? parts.length : up).join('/'));
    let dir = up < 0 ? top : join(root, parts.slice(0, up + 1).join('/'));
    // Allowed: the repository is the nearest folder holding a manifest, up to the top of the climb (`../lib/express` lies in `..`'s package).
    if (isAllowed(settings, resolve(dir))) while (!hasManifest(dir) && resolve(dir) !== resolve(top)) dir = dirname(dir);
    add(dir, `${ref.kind}_reference`);
  }
  const parent = dirname(resolve(root));
  if (isAllowed(settings, parent)) {
    const own = readManifest(root);
    for (const d of await fg('*', { cwd: parent, onlyDirectories: true, deep: 1 })) {
      const dir = join(parent, d);
      if (dir !== resolve(root) && hasManifest(dir) && packagesUsed(own, readManifest(dir), dir).length > 0) add(dir, 'sibling_package');
    }
  }
  // The workspace's own name is taken too: a candidate named like it was dropped.
  const taken = new Set<string>(reserved);
  const list = [...found.values()].sort((a, b) => Number(b.allowed) - Number(a.allowed) || b.reasons.length - a.reasons.length || a.path.localeCompare(b.path));
  for (const c of list) {
    const base = repoName(basename(c.root), 'repo').slice(0, 56);
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
    taken.add(name);
    c.name = name;
  }
  return list.slice(0, max);
}

/** A folder's name as a repository's namespace: characters a namespace may hold, no leading dots (`.`, `..`, `.view` name folders of the store). */
export function repoName(folder: string, fallback: string): string {
  return folder.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^\.+/, '').slice(0, 64) || fallback;
}
