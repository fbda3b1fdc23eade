/**
 * References in workspace files to paths outside the workspace root: relative imports and
 * document links that climb out (`../../lib/src/x.ts`), and manifest entries naming sibling
 * folders (package.json `file:`/`link:` dependencies and workspaces, tsconfig `extends` and
 * `references`, go.mod `replace … => ../x`, Cargo.toml and pyproject.toml `path = "../x"`, pip
 * requirements `-e ../x` and `@ file:../x`).
 * Nothing outside the root is read or even checked for existence: only the workspace's own text.
 */
import fg from 'fast-glob';
import { posix } from 'node:path';
import type { FileExtraction, GraphService } from '../graph/api.ts';
import { slicePace } from '../graph/api.ts';

export interface OutsideReference {
  /** Workspace file holding the reference. */
  file: string;
  line: number;
  kind: 'import' | 'doc_link' | 'manifest';
  /** As written. */
  text: string;
  /** Relative to the workspace root, starting with `..` (or absolute as written). */
  target: string;
}

const MANIFESTS = ['**/package.json', '**/tsconfig*.json', '**/go.mod', '**/Cargo.toml', '**/pyproject.toml', '**/*requirements*.txt'];
const SKIP = ['**/node_modules/**', '**/.git/**', '**/.m1nd/**', '**/target/**', '**/dist/**', '**/vendor/**'];

/** Root-relative form of `spec` written in `file`, when it leaves the root; null otherwise. */
export function outside(file: string, spec: string): string | null {
  if (spec.startsWith('/')) return spec;
  if (!spec.startsWith('../') && spec !== '..') return null;
  // `../../` and `../..` name one folder: no trailing slash.
  const joined = posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\/+$/, '');
  return joined === '..' || joined.startsWith('../') ? joined : null;
}

/** Per engine: each file's outside references with the key of the extraction they were read from. */
const byEngine = new WeakMap<object, Map<string, { key: string; refs: OutsideReference[] }>>();

/** A file's relative imports and document links that leave the root. */
function fileReferences(file: string, x: FileExtraction): OutsideReference[] {
  const refs: OutsideReference[] = [];
  for (const imp of x.imports) {
    const target = outside(file, imp.specifier);
    if (target) refs.push({ file, line: imp.line, kind: 'import', text: imp.specifier, target });
  }
  for (const link of x.docLinks) {
    if (link.kind === 'code_symbol') continue;
    const target = outside(file, link.target);
    if (target) refs.push({ file, line: link.line, kind: 'doc_link', text: link.target, target });
  }
  return refs;
}

/** Every outside reference of the ingested files and the workspace's manifests in scope (`inScope`: all by default), in file order. */
export async function outsideReferences(graph: GraphService, limit: number, inScope: (file: string) => boolean = () => true): Promise<OutsideReference[]> {
  const engine = await graph.requireGraph();
  const g = engine.graph;
  const out: OutsideReference[] = [];
  // A file's references are read from its stored extraction (decoded, ~0.1-1 ms a file) once per
  // extraction: kept per path with the extraction's key, so later calls decode only changed files.
  let known = byEngine.get(engine);
  if (!known) byEngine.set(engine, (known = new Map()));
  const pace = slicePace(8);
  for (let i = 0; i < g.nodeCapacity && out.length < limit; i++) {
    const n = g.node(i);
    if (!n || n.kind !== 'file' || !inScope(n.path)) continue;
    const key = engine.fileExtractionKey(n.path);
    if (key === null) continue;
    let refs = known.get(n.path);
    if (refs?.key !== key) {
      await pace();
      const x = engine.fileExtraction(n.path);
      if (!x) continue;
      refs = { key, refs: fileReferences(n.path, x) };
      known.set(n.path, refs);
    }
    out.push(...refs.refs);
  }
  const root = engine.resolvePath('.').absolute;
  const manifests = await fg(MANIFESTS, { cwd: root, ignore: SKIP, onlyFiles: true, followSymbolicLinks: false, deep: 8 });
  for (const file of manifests.sort()) {
    if (out.length >= limit) break;
    if (!inScope(file)) continue;
    let text: string;
    try {
      text = engine.readFile(file).content;
    } catch {
      continue;
    }
    for (const [line, spec] of manifestPaths(file, text)) {
      const target = outside(file, spec);
      if (target) out.push({ file, line, kind: 'manifest', text: spec, target });
    }
  }
  return out.slice(0, limit);
}

/** (line, relative path) pairs a manifest names as sibling folders or files. */
function manifestPaths(file: string, text: string): [number, string][] {
  const base = posix.basename(file);
  const found: [number, string][] = [];
  const lines = text.split('\n');
  const each = (re: RegExp, group = 1) =>
    lines.forEach((l, i) => {
      for (const m of l.matchAll(re)) found.push([i + 1, m[group]]);
    });
  if (base === 'package.json') {
    each(/"(?:file|link|portal):(\.\.?\/[^"]*)"/g);
    // Workspace globs naming folders outside ("../packages/*") count by their fixed prefix.
    each(/"(\.\.\/[^"*]*)(?:\*[^"]*)?"/g);
  } else if (base.startsWith('tsconfig')) {
    each(/"(?:extends|path)"\s*:\s*"(\.\.\/[^"]*)"/g);
  } else if (base === 'go.mod') {
    each(/=>\s*(\.\.\/\S*)/g);
  } else if (base.endsWith('.txt')) {
    // pip: `-e ../lib`, `../lib`, `acme @ file:../lib`.
    each(/^\s*(?:-e\s+|--editable[=\s]\s*)?(\.\.\/[^\s#;]*)/g);
    each(/@\s*file:(?:\/\/)?(\.\.\/[^\s#;]*)/g);
  } else {
    each(/path\s*=\s*"(\.\.\/[^"]*)"/g);
  }
  // The same spec matched by two patterns on one line counts once.
  const seen = new Set<string>();
  return found.filter(([l, s]) => {
    const k = `${l}:${s.replace(/\/$/, '')}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  }).map(([l, s]) => [l, s.replace(/\/$/, '')]);
}
