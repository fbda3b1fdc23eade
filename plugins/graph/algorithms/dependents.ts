/**
 * Sorting an impact walk into what an agent needs first: the direct dependents (one edge away, read
 * from the adjacency, so none is lost to a stronger detour), the transitive ones (best path without
 * a file import), the module import fan-out (best path through a file → file import: a file that
 * imports the file of a changed symbol may not use it at all), and the origin's own structure (its
 * enclosing file/class in reverse, its parts forward) which is neither.
 */
import { RELATION_CODE, type CodeGraph } from '../engine/graph.ts';
import { confidenceOf } from './confidence.ts';
import { CONTAINS, KIND_CODE, kindCodes } from './graph-facts.ts';
import type { Direction, Propagation } from './propagation.ts';
import type { RelationProfile } from './relations.ts';

const IMPORTS = RELATION_CODE.imports;

/** A node one edge away from the origin. */
export interface DirectDependent {
  index: number;
  /** Relation codes of the edges between the two (strongest first). */
  relations: number[];
  /** Confidence of the strongest edge. */
  confidence: number;
  /** The strongest edge (id) and whether it points at the origin (true when walked against it). */
  edge: number;
  backward: boolean;
}

/** A node further away, by its position in the propagation. */
export interface TransitiveDependent {
  position: number;
  /** Lowest edge confidence along the best path, and the edge holding it. */
  weakest: number;
  weakestEdge: number;
  /** The best path ends by stepping to a container or a part of a dependent (a location, not news). */
  enclosing: boolean;
}

export interface DependentGroups {
  direct: DirectDependent[];
  transitive: TransitiveDependent[];
  /** Positions reached through a file → file import. */
  importFanout: TransitiveDependent[];
  /** Node indices reached only through containment (the origin's enclosing nodes or parts). */
  structure: number[];
}

export interface GroupOptions {
  direction: Direction;
  relations: RelationProfile;
  /** Edges below this confidence are not direct dependents (the walk should use the same cut). */
  minConfidence: number;
}

/** Groups the nodes an impact propagation from `origin` reached (module nodes are skipped). */
export function groupDependents(g: CodeGraph, origin: number, p: Propagation, o: GroupOptions): DependentGroups {
  const kinds = kindCodes(g);
  const direct = directDependents(g, origin, kinds, o);
  const isDirect = new Set(direct.map((d) => d.index));
  const transitive: TransitiveDependent[] = [];
  const importFanout: TransitiveDependent[] = [];
  const structure: number[] = [];
  // Parents settle before children (best-first), so path facts build up in one pass over `order`.
  const position = new Map<number, number>();
  const onlyContains = new Uint8Array(p.count);
  const viaImport = new Uint8Array(p.count);
  const weakest = new Float32Array(p.count);
  const weakestEdge = new Int32Array(p.count).fill(-1);
  for (let k = 0; k < p.count; k++) {
    const v = p.order[k];
    position.set(v, k);
    const parentPos = p.parent[k] >= 0 ? position.get(p.parent[k]) : undefined;
    if (parentPos === undefined) {
      onlyContains[k] = 1;
      weakest[k] = 1;
      continue;
    }
    const e = p.parentEdge[k];
    const rel = g.edgeRelation[e];
    const conf = confidenceOf(rel, g.edgeWeight[e]);
    onlyContains[k] = onlyContains[parentPos] && rel === CONTAINS ? 1 : 0;
    viaImport[k] = viaImport[parentPos] || rel === IMPORTS ? 1 : 0;
    const inherited = weakest[parentPos];
    weakest[k] = conf < inherited ? conf : inherited;
    weakestEdge[k] = conf < inherited ? e : weakestEdge[parentPos];
    if (v === origin || kinds[v] === KIND_CODE.module || isDirect.has(v)) continue;
    if (onlyContains[k]) {
      structure.push(v);
      continue;
    }
    const entry = { position: k, weakest: weakest[k], weakestEdge: weakestEdge[k], enclosing: rel === CONTAINS };
    (viaImport[k] ? importFanout : transitive).push(entry);
  }
  return { direct, transitive, importFanout, structure };
}

/** Nodes with an edge to (reverse) or from (forward) the origin, strongest first; containment excluded. */
function directDependents(g: CodeGraph, origin: number, kinds: Uint8Array, o: GroupOptions): DirectDependent[] {
  const byNode = new Map<number, DirectDependent & { weight: number }>();
  const visit = (other: number, weight: number, rel: number, edge: number, backward: boolean): void => {
    if (other === origin || rel === CONTAINS || o.relations[rel] === 0 || kinds[other] === KIND_CODE.module) return;
    const confidence = confidenceOf(rel, weight);
    if (confidence < o.minConfidence) return;
    const cur = byNode.get(other);
    if (!cur) {
      byNode.set(other, { index: other, relations: [rel], confidence, edge, backward, weight });
      return;
    }
    if (weight > cur.weight) {
      cur.relations = [rel, ...cur.relations.filter((r) => r !== rel)];
      Object.assign(cur, { confidence, edge, backward, weight });
    } else if (!cur.relations.includes(rel)) cur.relations.push(rel);
  };
  if (o.direction !== 'out') g.forEachIn(origin, (src, w, rel, e) => visit(src, w, rel, e, true));
  if (o.direction !== 'in') g.forEachOut(origin, (dst, w, rel, e) => visit(dst, w, rel, e, false));
  return [...byNode.values()]
    .sort((a, b) => b.weight - a.weight || g.node(a.index)!.id.localeCompare(g.node(b.index)!.id))
    .map(({ weight: _w, ...d }) => d);
}
