/**
 * The dependency graph the layer and xray analyses work on: one unit per file (or per directory),
 * an arc A → B when code in A imports, calls, references, inherits or implements code in B, weighed
 * by how many such symbol-level links there are (each counted at its resolution confidence).
 */
import { DEPENDENCY_RELATIONS, RELATION_CODE, dirOf, edgeConfidence, ensureFinal, fileIndexOf, warmFileIndex, type CodeGraph } from '../graph/api.ts';
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
}

export interface UnitGraphOptions {
  granularity: Granularity;
  inScope: (path: string) => boolean;
  excludeTests: boolean;
}

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
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & 0xfff) === 0) await deadline.pace(); // a dependency edge costs a confidence, map updates and a key: 65,536 held the loop ~40 ms
    if (!g.edgeAlive[e] || !DEPENDENCY[g.edgeRelation[e]]) continue;
    const a = unitOf[g.edgeSource[e]];
    const b = unitOf[g.edgeTarget[e]];
    if (a < 0 || b < 0 || a === b) continue;
    const confidence = edgeConfidence(g, e);
    if (confidence < MIN_CONFIDENCE) continue;
    out[a].set(b, (out[a].get(b) ?? 0) + confidence);
    const key = `${a} ${b}`;
    const list = examples.get(key) ?? [];
    if (list.length < 3) {
      const edge = g.edge(e)!;
      list.push({ source: edge.source, target: edge.target, relation: edge.relation });
      examples.set(key, list);
    }
  }
  return { granularity: options.granularity, units, out, examples, size };
}
