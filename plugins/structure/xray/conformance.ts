/**
 * The code checked against a layer manifest: the file dependency graph (unit-graph.ts), each file
 * placed in its layer, the layer × layer dependency matrix, every arc judged (upward, forbidden,
 * skipping, unmapped), file cycles, and the erosion candidates — the files whose own dependencies
 * break the manifest, heaviest first. Cached per graph version and manifest.
 */
import picomatch from 'picomatch';
import type { CodeGraph } from '../../graph/api.ts';
import type { Deadline } from '../deadline.ts';
import { stronglyConnected } from '../layering.ts';
import { buildUnitGraph, type LinkExample, type TypeOnlyImports, type UnitGraph } from '../unit-graph.ts';
import { judge, layerOf, type Manifest, type Verdict } from './manifest.ts';

export interface JudgedArc {
  from: string;
  to: string;
  weight: number;
  kind: Verdict['kind'];
  why: string;
  via: LinkExample[];
}

export interface Conformance {
  units: UnitGraph;
  /** Layer index per unit (-1: in no layer). */
  layer: Int32Array;
  /** matrix[a][b]: summed dependency weight from layer a to layer b (last row/column: unmapped). */
  matrix: number[][];
  /** Arcs that break the manifest (upward, forbidden, skip), heaviest first. */
  violations: JudgedArc[];
  /** File cycles (components of more than one file), with the layers they span. */
  cycles: { members: string[]; layers: string[] }[];
  /** Files in no layer. */
  unmapped: string[];
  /** require_exists globs no file matches. */
  missing: string[];
}

const round = (x: number) => Math.round(x * 100) / 100;

const cache = new WeakMap<CodeGraph, { version: number; key: string; result: Conformance }>();

/** Checks the files in scope (`scopeKey` names the scope) against the manifest; cached per graph version, manifest and scope. */
export async function conformance(g: CodeGraph, m: Manifest, inScope: (path: string) => boolean, scopeKey: string, deadline: Deadline, typeOnlyImports?: TypeOnlyImports): Promise<Conformance> {
  const key = `${scopeKey}\n${m.key}`;
  const hit = cache.get(g);
  if (hit && hit.version === g.version && hit.key === key) return hit.result;
  const version = g.version;
  const result = await compute(g, m, inScope, deadline, typeOnlyImports);
  if (!deadline.spent()) cache.set(g, { version, key, result });
  return result;
}

async function compute(g: CodeGraph, m: Manifest, inScope: (path: string) => boolean, deadline: Deadline, typeOnlyImports?: TypeOnlyImports): Promise<Conformance> {
  const units = await buildUnitGraph(g, { granularity: 'file', inScope, excludeTests: false, typeOnlyImports }, deadline);
  const n = units.units.length;
  const L = m.layers.length;
  const layer = new Int32Array(n);
  for (let u = 0; u < n; u++) layer[u] = layerOf(m, units.units[u]);
  const matrix = Array.from({ length: L + 1 }, () => new Array<number>(L + 1).fill(0));
  const violations: JudgedArc[] = [];
  for (let a = 0; a < n; a++) {
    if ((a & 255) === 0) await deadline.pace();
    for (const [b, w] of units.out[a]) {
      const la = layer[a] < 0 ? L : layer[a];
      const lb = layer[b] < 0 ? L : layer[b];
      matrix[la][lb] += w;
      const v = judge(m, units.units[a], units.units[b]);
      if (v.kind === 'allowed' || v.kind === 'unmapped') continue;
      violations.push({ from: units.units[a], to: units.units[b], weight: round(w), kind: v.kind, why: v.why, via: units.examples.get(`${a} ${b}`) ?? [] });
    }
  }
  const rank = { forbidden: 0, upward: 1, skip: 2 } as Record<string, number>;
  violations.sort((x, y) => rank[x.kind] - rank[y.kind] || y.weight - x.weight || x.from.localeCompare(y.from));
  const cycles = stronglyConnected(n, units.out)
    .filter((c) => c.length > 1)
    .map((c) => {
      const members = c.map((u) => units.units[u]).sort();
      const layers = [...new Set(c.map((u) => (layer[u] < 0 ? '(none)' : m.layers[layer[u]].name)))].sort();
      return { members, layers };
    })
    .sort((x, y) => y.layers.length - x.layers.length || y.members.length - x.members.length);
  const unmapped = units.units.filter((_, u) => layer[u] < 0);
  const paths: string[] = [];
  for (const [, node] of g.nodes()) if (node.kind === 'file') paths.push(node.path);
  const missing = m.requireExists.filter((glob) => !paths.some((p) => globMatch(glob, p)));
  return { units, layer, matrix: matrix.map((row) => row.map(round)), violations, cycles, unmapped, missing };
}

function globMatch(glob: string, path: string): boolean {
  const clean = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  return picomatch.scan(clean).isGlob ? picomatch.isMatch(path, clean, { dot: true }) : path === clean || path.startsWith(`${clean}/`);
}

/** Erosion candidates: files whose outgoing arcs break the manifest, by summed weight (worst kind first). */
export function erosionCandidates(c: Conformance, m: Manifest): { file: string; layer: string | null; weight: number; kinds: string[]; arcs: { to: string; kind: string; why: string }[] }[] {
  const byFile = new Map<string, JudgedArc[]>();
  for (const v of c.violations) {
    const list = byFile.get(v.from);
    if (list) list.push(v);
    else byFile.set(v.from, [v]);
  }
  const layerName = (path: string) => {
    const i = layerOf(m, path);
    return i < 0 ? null : m.layers[i].name;
  };
  return [...byFile]
    .map(([file, arcs]) => ({
      file,
      layer: layerName(file),
      weight: round(arcs.reduce((s, a) => s + a.weight * (a.kind === 'skip' ? 0.3 : 1), 0)),
      kinds: [...new Set(arcs.map((a) => a.kind))],
      arcs: arcs.slice(0, 5).map((a) => ({ to: a.to, kind: a.kind, why: a.why })),
    }))
    .sort((x, y) => y.weight - x.weight || x.file.localeCompare(y.file));
}
