/**
 * The dependency graph the layer and xray analyses work on: one unit per file (or per directory),
 * an arc A → B when code in A imports, calls, references, inherits or implements code in B, weighed
 * by how many such symbol-level links there are (each counted at its resolution confidence).
 * An arc whose only imports are for the type checker (`import type`, `if TYPE_CHECKING:`) and that
 * has no call, inheritance or run-time import is set aside: it is the kind of edge developers write
 * to break a run-time cycle, and it neither orders layers nor closes cycles.
 */
import { DEPENDENCY_RELATIONS, RELATION_CODE, dirOf, edgeConfidence, ensureFinal, fileIndexOf, warmFileIndex, type CodeGraph, type CodeGraphEngine } from '../graph/api.ts';
import type { Deadline } from './deadline.ts';

/** Links resolved below this confidence (name guesses) do not make a dependency. */
const MIN_CONFIDENCE = 0.5;
const DEPENDENCY = new Uint8Array(32);
for (const r of DEPENDENCY_RELATIONS) DEPENDENCY[RELATION_CODE[r]] = 1;

export type Granularity = 'file' | 'module';

/** One symbol-level link behind a unit arc, as evidence. */
export interface LinkExample {
  source: string;
  target: string;
  relation: string;
}

export interface UnitGraph {
  granularity: Granularity;
  /** Unit names: file paths, or directory paths for modules. */
  units: string[];
  /** out[u]: target unit → weight. */
  out: Map<number, number>[];
  /** Up to 3 links per arc, keyed `${from} ${to}`. */
  examples: Map<string, LinkExample[]>;
  /** Number of graph nodes per unit (files count their symbols). */
  size: number[];
  /** Arcs set aside as type-only (see the file comment). */
  typeOnlyArcs: number;
  /** Whether arc a → b rests on more than imports (a call, reference, inheritance): A uses B's code, not only names it (a package's re-exports). */
  uses(a: number, b: number): boolean;
}

/**
 * What a file imports for the type checker only (nothing of it at run time): the names, and the
 * modules by their last path segment (`._models`, `./a`, `httpx`); null when it has no such import.
 */
export interface TypeOnlyNames {
  names: ReadonlySet<string>;
  modules: ReadonlySet<string>;
}
export type TypeOnlyImports = (path: string) => TypeOnlyNames | null;

/** The last segment of a module specifier (`..pkg.mod` → `mod`, `./util.js` → `util`). */
const moduleStem = (specifier: string) => specifier.replace(/\.(?:[cm]?[jt]sx?)$/, '').split(/[./\\:]+/).filter(Boolean).pop() ?? '';

/** A file's module name as imports name it: its basename without extension, its folder's for `__init__.py`/`index.*`. */
export function fileStem(path: string): string {
  const parts = path.split('/');
  const base = parts[parts.length - 1].replace(/\.[^.]+$/, '');
  return (base === '__init__' || base === 'index' || base === 'mod') && parts.length > 1 ? parts[parts.length - 2] : base;
}

/** `TypeOnlyImports` from the engine's stored extractions (read once per file and call). */
export function typeOnlyImportsOf(engine: CodeGraphEngine): TypeOnlyImports {
  const seen = new Map<string, TypeOnlyNames | null>();
  const declared = (name: string) => name.split(/\s+as\s+/)[0];
  return (path) => {
    let found = seen.get(path);
    if (found === undefined) {
      const imports = engine.hasTypeOnlyImports(path) ? (engine.fileExtraction(path)?.imports ?? []) : [];
      found = null;
      if (imports.some((i) => i.typeOnly)) {
        const runtime = imports.filter((i) => !i.typeOnly);
        const typed = imports.filter((i) => i.typeOnly);
        const runtimeNames = new Set(runtime.flatMap((i) => i.names.map(declared)));
        const runtimeModules = new Set([...runtime.map((i) => moduleStem(i.specifier)), ...runtimeNames]);
        const names = new Set(typed.flatMap((i) => i.names.map(declared)).filter((n) => !runtimeNames.has(n)));
        const modules = new Set([...typed.map((i) => moduleStem(i.specifier)), ...names].filter((m) => m !== '' && !runtimeModules.has(m)));
        found = { names, modules };
      }
      seen.set(path, found);
    }
    return found;
  };
}

export interface UnitGraphOptions {
  granularity: Granularity;
  inScope: (path: string) => boolean;
  excludeTests: boolean;
  /** Type-only imports per file: arcs resting on them alone are set aside (none when absent). */
  typeOnlyImports?: TypeOnlyImports;
}

const RUNTIME = new Uint8Array(32);
for (const r of ['calls', 'inherits', 'implements', 'dispatches', 'imports'] as const) RUNTIME[RELATION_CODE[r]] = 1;

/** Builds the unit graph of the files in scope (markdown and other prose excluded). */
export async function buildUnitGraph(g: CodeGraph, options: UnitGraphOptions, deadline: Deadline): Promise<UnitGraph> {
  ensureFinal(g);
  await warmFileIndex(g, () => deadline.pace());
  const fileOf = fileIndexOf(g);
  const unitOfFile = new Map<number, number>();
  const units: string[] = [];
  const byName = new Map<string, number>();
  const size: number[] = [];
  let k = 0;
  for (const [i, n] of g.nodes()) {
    if ((++k & 2047) === 0) await deadline.pace();
    if (n.kind !== 'file' || n.language === null || n.language === 'markdown') continue;
    if (!options.inScope(n.path) || (options.excludeTests && n.isTest)) continue;
    const name = options.granularity === 'file' ? n.path : dirOf(n.path) || '.';
    let u = byName.get(name);
    if (u === undefined) {
      u = units.length;
      units.push(name);
      byName.set(name, u);
      size.push(0);
    }
    unitOfFile.set(i, u);
  }
  const unitOf = new Int32Array(g.nodeCapacity).fill(-1);
  for (let i = 0; i < g.nodeCapacity; i++) {
    if ((i & 8191) === 8191) await deadline.pace();
    const f = fileOf[i];
    if (f < 0) continue;
    const u = unitOfFile.get(f);
    if (u !== undefined) {
      unitOf[i] = u;
      size[u]++;
    }
  }
  const out: Map<number, number>[] = units.map(() => new Map());
  const examples = new Map<string, LinkExample[]>();
  // Per arc (a × units + b): 1 = a call, inheritance or dispatch (run time for sure); else the
  // import edges to judge once all are seen (reading a file's imports only for such arcs).
  const strong = new Set<number>();
  const used = new Set<number>();
  const importsOf = new Map<number, number[]>();
  const typeOnly = options.typeOnlyImports;
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & 0xfff) === 0) await deadline.pace(); // a dependency edge costs a confidence, map updates and a key: 65,536 held the loop ~40 ms
    if (!g.edgeAlive[e] || !DEPENDENCY[g.edgeRelation[e]]) continue;
    const a = unitOf[g.edgeSource[e]];
    const b = unitOf[g.edgeTarget[e]];
    if (a < 0 || b < 0 || a === b) continue;
    const confidence = edgeConfidence(g, e);
    if (confidence < MIN_CONFIDENCE) continue;
    if (g.edgeRelation[e] !== RELATION_CODE.imports) used.add(a * units.length + b);
    if (typeOnly && RUNTIME[g.edgeRelation[e]]) {
      const arc = a * units.length + b;
      if (g.edgeRelation[e] !== RELATION_CODE.imports) strong.add(arc);
      else if (!strong.has(arc)) {
        const list = importsOf.get(arc);
        if (list) list.push(e);
        else importsOf.set(arc, [e]);
      }
    }
    out[a].set(b, (out[a].get(b) ?? 0) + confidence);
    const key = `${a} ${b}`;
    const list = examples.get(key) ?? [];
    if (list.length < 3) {
      const edge = g.edge(e)!;
      list.push({ source: edge.source, target: edge.target, relation: edge.relation });
      examples.set(key, list);
    }
  }
  let typeOnlyArcs = 0;
  // An import edge is type-only when its file imports the target (a name, or a module by its last
  // segment) for the type checker only.
  const typeOnlyEdge = (e: number): boolean => {
    const source = g.node(g.edgeSource[e]);
    const only = source?.kind === 'file' ? typeOnly!(source.path) : null;
    const target = only ? g.node(g.edgeTarget[e]) : null;
    return target !== null && target !== undefined && (target.kind === 'file' ? only!.modules.has(fileStem(target.path)) : only!.names.has(target.label));
  };
  let judged = 0;
  for (const [arc, edges] of importsOf) {
    if (strong.has(arc)) continue;
    if ((++judged & 63) === 0) await deadline.pace();
    if (!edges.every(typeOnlyEdge)) continue;
    const a = Math.floor(arc / units.length);
    const b = arc % units.length;
    out[a].delete(b);
    examples.delete(`${a} ${b}`);
    typeOnlyArcs++;
  }
  const n = units.length;
  return { granularity: options.granularity, units, out, examples, size, typeOnlyArcs, uses: (a, b) => used.has(a * n + b) };
}
