/**
 * What a repository is called as a package and which packages it depends on, read from its root
 * manifests: package.json (name, dependencies of every kind), go.mod (module, require), pyproject.toml
 * (`[project] name`, dependencies) and Cargo.toml (`[package] name`, `[dependencies]`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RepoManifest {
  /** Package names the repository publishes. */
  names: string[];
  /** Dependency name → manifest file and line declaring it. */
  dependencies: Map<string, { file: string; line: number }>;
}

function read(root: string, file: string): string | null {
  try {
    return readFileSync(join(root, file), 'utf8');
  } catch {
    return null;
  }
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1 || 1;

/** The manifest facts of a repository root. */
export function readManifest(root: string): RepoManifest {
  const names: string[] = [];
  const dependencies = new Map<string, { file: string; line: number }>();
  const pkg = read(root, 'package.json');
  if (pkg) {
    try {
      const j = JSON.parse(pkg) as Record<string, unknown>;
      if (typeof j.name === 'string') names.push(j.name);
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        for (const dep of Object.keys((j[field] as Record<string, string>) ?? {})) dependencies.set(dep, { file: 'package.json', line: lineOf(pkg, `"${dep}"`) });
      }
    } catch {
      // a broken package.json names nothing
    }
  }
  const gomod = read(root, 'go.mod');
  if (gomod) {
    const m = /^module\s+(\S+)/m.exec(gomod);
    if (m) names.push(m[1]);
    for (const r of gomod.matchAll(/^\s*(?:require\s+)?([\w.-]+\.[\w.-]+\/\S+)\s+v\S+/gm)) dependencies.set(r[1], { file: 'go.mod', line: lineOf(gomod, r[1]) });
  }
  const pyproject = read(root, 'pyproject.toml');
  if (pyproject) {
    const m = /^\[project\][^[]*?^name\s*=\s*["']([^"']+)/ms.exec(pyproject);
    if (m) names.push(m[1]);
    const deps = /^dependencies\s*=\s*\[([\s\S]*?)\]/m.exec(pyproject);
    for (const d of deps?.[1].matchAll(/["']([A-Za-z0-9_.-]+)/g) ?? []) dependencies.set(d[1], { file: 'pyproject.toml', line: lineOf(pyproject, d[1]) });
  }
  const cargo = read(root, 'Cargo.toml');
  if (cargo) {
    const m = /^\[package\][^[]*?^name\s*=\s*"([^"]+)"/ms.exec(cargo);
    if (m) names.push(m[1]);
    const deps = /^\[dependencies\]([^[]*)/m.exec(cargo);
    for (const d of deps?.[1].matchAll(/^([\w-]+)\s*=/gm) ?? []) dependencies.set(d[1], { file: 'Cargo.toml', line: lineOf(cargo, `${d[1]} `) });
  }
  return { names, dependencies };
}
