/**
 * The in-memory code graph: nodes addressed by stable string ids and by integer indices, edges in
 * growable typed arrays, and a CSR adjacency (both directions) rebuilt by `finalize()`.
 * Indices are stable while a node lives (incremental ingest patches in place); a removed node leaves
 * an empty slot until the next full build. Hold ids across calls, indices only within one `version`.
 */

// The graph's vocabulary lives in graph-schema.ts; re-exported so importers keep one import.
export { DEFAULT_WEIGHTS, RELATION_CODE, RELATIONS, STRUCTURAL_CONTAINS_WEIGHT, fileNodeId, moduleNodeId, symbolNodeId } from './graph-schema.ts';
export type { GraphEdge, GraphNode, NodeKind, Relation } from './graph-schema.ts';
import { RELATION_CODE, RELATIONS, type GraphEdge, type GraphNode, type NodeKind, type Relation } from './graph-schema.ts';

const INITIAL_EDGE_CAPACITY = 1024;
/** Edge slots or nodes per step of `finalizeSteps` (a power of two, less one: a mask). */
const FINALIZE_STEP_MASK = (1 << 13) - 1;

/** The graph. Mutate through add/remove, then call `finalize()` before traversing. */
export class CodeGraph {
  private readonly slots: (GraphNode | null)[] = [];
  private readonly byId = new Map<string, number>();
  private liveNodes = 0;

  /** Edge endpoints, relation code, weight and liveness, indexed by edge id. */
  edgeSource = new Uint32Array(INITIAL_EDGE_CAPACITY);
  edgeTarget = new Uint32Array(INITIAL_EDGE_CAPACITY);
  edgeRelation = new Uint8Array(INITIAL_EDGE_CAPACITY);
  edgeWeight = new Float32Array(INITIAL_EDGE_CAPACITY);
  edgeAlive = new Uint8Array(INITIAL_EDGE_CAPACITY);
  private edgeTop = 0;
  private liveEdges = 0;

  /** CSR: out-edges of node i are outEdges[outOffsets[i] .. outOffsets[i+1]) (edge ids). */
  outOffsets = new Uint32Array(1);
  outEdges = new Uint32Array(0);
  /** CSR: in-edges of node i are inEdges[inOffsets[i] .. inOffsets[i+1]) (edge ids). */
  inOffsets = new Uint32Array(1);
  inEdges = new Uint32Array(0);

  /**
   * Fills an empty graph with nodes (indices 0..n-1 in order) and edges (ids 0..m-1) in one go, then
   * finalizes: what a load from a snapshot does instead of adding them one at a time. A generator
   * that yields between batches of nodes, so a caller can run it in slices.
   */
  *restore(nodes: readonly GraphNode[], source: Uint32Array, target: Uint32Array, relation: Uint8Array, weight: Float32Array): Generator<void, void> {
    if (this.slots.length > 0 || this.edgeTop > 0) throw new Error('CodeGraph.restore needs an empty graph');
    for (let i = 0; i < nodes.length; i++) {
      this.slots.push(nodes[i]);
      this.byId.set(nodes[i].id, i);
      if ((i + 1) % 4096 === 0) yield;
    }
    yield;
    this.liveNodes = nodes.length;
    const m = source.length;
    const capacity = Math.max(INITIAL_EDGE_CAPACITY, m);
    this.edgeSource = new Uint32Array(capacity);
    this.edgeSource.set(source);
    this.edgeTarget = new Uint32Array(capacity);
    this.edgeTarget.set(target);
    this.edgeRelation = new Uint8Array(capacity);
    this.edgeRelation.set(relation);
    this.edgeWeight = new Float32Array(capacity);
    this.edgeWeight.set(weight);
    this.edgeAlive = new Uint8Array(capacity);
    this.edgeAlive.fill(1, 0, m);
    this.edgeTop = m;
    this.liveEdges = m;
    this.markDirty();
    yield;
    this.finalize();
  }

  /** Bumped by every `finalize()`; caches (PageRank, indexes) key on it. */
  version = 0;
  private dirty = false;
  /** Counts mutations: a sliced `finalizeSteps` that saw one between its steps starts again. */
  private mutations = 0;

  private markDirty(): void {
    this.dirty = true;
    this.mutations++;
  }

  /** Number of node slots (live and empty); loop `0..nodeCapacity` and skip nulls from `node(i)`. */
  get nodeCapacity(): number {
    return this.slots.length;
  }

  /** Number of live nodes. */
  get nodeCount(): number {
    return this.liveNodes;
  }

  /** Number of edge slots (live and dead). */
  get edgeCapacity(): number {
    return this.edgeTop;
  }

  /** Number of live edges. */
  get edgeCount(): number {
    return this.liveEdges;
  }

  /** True when mutations happened since the last `finalize()`. */
  get needsFinalize(): boolean {
    return this.dirty;
  }

  /** The node at an index, or null for an empty slot. */
  node(index: number): GraphNode | null {
    return this.slots[index] ?? null;
  }

  /**
   * An object standing for the data of node `index` (null for an empty slot): the same object while
   * the node is unchanged, another once it is replaced. Caches compare it to see what changed; a
   * composite graph (federated view) answers with its member's node, `node()` being a namespaced copy.
   */
  nodeKey(index: number): object | null {
    return this.slots[index] ?? null;
  }

  /** The node slots as of now (a shallow copy): what a composite graph reads its members' nodes from. */
  nodeSlots(): (GraphNode | null)[] {
    return this.slots.slice();
  }

  /** Index of a node id, or -1. */
  indexOf(id: string): number {
    return this.byId.get(id) ?? -1;
  }

  /** The node with this id, or null. */
  get(id: string): GraphNode | null {
    const i = this.byId.get(id);
    return i === undefined ? null : this.slots[i];
  }

  /** Iterates live nodes with their index. */
  *nodes(): IterableIterator<[number, GraphNode]> {
    for (let i = 0; i < this.slots.length; i++) {
      const n = this.slots[i];
      if (n) yield [i, n];
    }
  }

  /** Adds a node, or replaces the data of the node with the same id in place (keeping its index). */
  upsertNode(node: GraphNode): number {
    const existing = this.byId.get(node.id);
    if (existing !== undefined) {
      this.slots[existing] = node;
      return existing;
    }
    const index = this.slots.length;
    this.slots.push(node);
    this.byId.set(node.id, index);
    this.liveNodes++;
    this.markDirty();
    return index;
  }

  /** Removes a node and every edge touching it; returns the ids of the removed edges. */
  removeNode(index: number): number[] {
    const node = this.slots[index];
    if (!node) return [];
    const removed: number[] = [];
    // The CSR may be older than the last mutations, so scan it and skip dead edges; edges added
    // since the last finalize are caught by the pending scan below.
    if (index + 1 < this.outOffsets.length) {
      for (let k = this.outOffsets[index]; k < this.outOffsets[index + 1]; k++) this.collectDead(this.outEdges[k], removed);
    }
    if (index + 1 < this.inOffsets.length) {
      for (let k = this.inOffsets[index]; k < this.inOffsets[index + 1]; k++) this.collectDead(this.inEdges[k], removed);
    }
    for (let e = this.csrEdgeTop; e < this.edgeTop; e++) {
      if (this.edgeSource[e] === index || this.edgeTarget[e] === index) this.collectDead(e, removed);
    }
    this.slots[index] = null;
    this.byId.delete(node.id);
    this.liveNodes--;
    this.markDirty();
    return removed;
  }

  private collectDead(edge: number, into: number[]): void {
    if (this.edgeAlive[edge]) {
      this.edgeAlive[edge] = 0;
      this.liveEdges--;
      into.push(edge);
    }
  }

  /** Edge slots below this were covered by the last CSR build. */
  private csrEdgeTop = 0;

  /** Appends an edge and returns its id. */
  addEdge(source: number, target: number, relation: number, weight: number): number {
    if (this.edgeTop === this.edgeSource.length) this.growEdges(this.edgeTop * 2);
    const e = this.edgeTop++;
    this.edgeSource[e] = source;
    this.edgeTarget[e] = target;
    this.edgeRelation[e] = relation;
    this.edgeWeight[e] = weight;
    this.edgeAlive[e] = 1;
    this.liveEdges++;
    this.markDirty();
    return e;
  }

  /** Marks an edge dead (its slot is reclaimed by `compactEdges`). */
  removeEdge(edge: number): void {
    if (edge < this.edgeTop && this.edgeAlive[edge]) {
      this.edgeAlive[edge] = 0;
      this.liveEdges--;
      this.markDirty();
    }
  }

  /** True when the edge id is live. */
  isEdgeAlive(edge: number): boolean {
    return edge < this.edgeTop && this.edgeAlive[edge] === 1;
  }

  /** A live edge as a plain record (ids and relation name). */
  edge(edge: number): GraphEdge | null {
    if (!this.isEdgeAlive(edge)) return null;
    return {
      source: this.node(this.edgeSource[edge])!.id,
      target: this.node(this.edgeTarget[edge])!.id,
      relation: RELATIONS[this.edgeRelation[edge]],
      weight: this.edgeWeight[edge],
    };
  }

  private growEdges(capacity: number): void {
    const grow = <T extends Uint32Array | Uint8Array | Float32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a.subarray(0, this.edgeTop));
      return b;
    };
    this.edgeSource = grow(this.edgeSource, (n) => new Uint32Array(n));
    this.edgeTarget = grow(this.edgeTarget, (n) => new Uint32Array(n));
    this.edgeRelation = grow(this.edgeRelation, (n) => new Uint8Array(n));
    this.edgeWeight = grow(this.edgeWeight, (n) => new Float32Array(n));
    this.edgeAlive = grow(this.edgeAlive, (n) => new Uint8Array(n));
  }

  /**
   * Drops dead edge slots, renumbering live edges; returns old id → new id (-1 for dead) so owners
   * of edge ids can remap. Call when dead slots dominate.
   */
  compactEdges(): Int32Array {
    const remap = new Int32Array(this.edgeTop).fill(-1);
    let w = 0;
    for (let e = 0; e < this.edgeTop; e++) {
      if (!this.edgeAlive[e]) continue;
      remap[e] = w;
      this.edgeSource[w] = this.edgeSource[e];
      this.edgeTarget[w] = this.edgeTarget[e];
      this.edgeRelation[w] = this.edgeRelation[e];
      this.edgeWeight[w] = this.edgeWeight[e];
      this.edgeAlive[w] = 1;
      w++;
    }
    this.edgeAlive.fill(0, w, this.edgeTop);
    this.edgeTop = w;
    this.markDirty();
    this.finalize();
    return remap;
  }

  /** Rebuilds the CSR adjacency (both directions) from the live edges; O(nodes + edges). */
  finalize(): void {
    for (const _ of this.finalizeSteps());
  }

  /**
   * `finalize()` in steps of 8,192 edge slots or nodes (FINALIZE_STEP_MASK), for patches run in slices (the CSR of
   * a 10,000-file graph takes ~7 ms in one go). The new adjacency is installed by the last step; until
   * then traversals see the previous one, as between any mutation and its finalize. A mutation between
   * two steps (another writer) makes the last step build it again in one go.
   */
  *finalizeSteps(): Generator<void, void> {
    const started = this.mutations;
    const n = this.nodeCapacity;
    const outOffsets = new Uint32Array(n + 1);
    const inOffsets = new Uint32Array(n + 1);
    const top = this.edgeTop;
    const src = this.edgeSource;
    const dst = this.edgeTarget;
    const alive = this.edgeAlive;
    for (let e = 0; e < top; e++) {
      if ((e & FINALIZE_STEP_MASK) === FINALIZE_STEP_MASK) yield;
      if (!alive[e]) continue;
      outOffsets[src[e] + 1]++;
      inOffsets[dst[e] + 1]++;
    }
    for (let i = 0; i < n; i++) {
      if ((i & FINALIZE_STEP_MASK) === FINALIZE_STEP_MASK) yield;
      outOffsets[i + 1] += outOffsets[i];
      inOffsets[i + 1] += inOffsets[i];
    }
    const live = outOffsets[n];
    const outEdges = new Uint32Array(live);
    const inEdges = new Uint32Array(live);
    const outFill = outOffsets.slice(0, n);
    const inFill = inOffsets.slice(0, n);
    for (let e = 0; e < top; e++) {
      if ((e & FINALIZE_STEP_MASK) === FINALIZE_STEP_MASK) yield;
      if (!alive[e]) continue;
      outEdges[outFill[src[e]]++] = e;
      inEdges[inFill[dst[e]]++] = e;
    }
    if (this.mutations !== started) {
      this.finalize();
      return;
    }
    this.outOffsets = outOffsets;
    this.inOffsets = inOffsets;
    this.outEdges = outEdges;
    this.inEdges = inEdges;
    this.csrEdgeTop = top;
    this.liveEdges = live;
    this.dirty = false;
    this.version++;
  }

  /** Out-degree (live edges) of a node, as of the last finalize. */
  outDegree(index: number): number {
    return index + 1 < this.outOffsets.length ? this.outOffsets[index + 1] - this.outOffsets[index] : 0;
  }

  /** In-degree (live edges) of a node, as of the last finalize. */
  inDegree(index: number): number {
    return index + 1 < this.inOffsets.length ? this.inOffsets[index + 1] - this.inOffsets[index] : 0;
  }

  /** Calls `visit(target, weight, relationCode, edgeId)` for each out-edge of a node. */
  forEachOut(index: number, visit: (target: number, weight: number, relation: number, edge: number) => void): void {
    if (index + 1 >= this.outOffsets.length) return;
    for (let k = this.outOffsets[index]; k < this.outOffsets[index + 1]; k++) {
      const e = this.outEdges[k];
      visit(this.edgeTarget[e], this.edgeWeight[e], this.edgeRelation[e], e);
    }
  }

  /** Calls `visit(source, weight, relationCode, edgeId)` for each in-edge of a node. */
  forEachIn(index: number, visit: (source: number, weight: number, relation: number, edge: number) => void): void {
    if (index + 1 >= this.inOffsets.length) return;
    for (let k = this.inOffsets[index]; k < this.inOffsets[index + 1]; k++) {
      const e = this.inEdges[k];
      visit(this.edgeSource[e], this.edgeWeight[e], this.edgeRelation[e], e);
    }
  }

  /** Live edges out of a node as records (convenience; use forEachOut in hot loops). */
  outgoing(id: string, relation?: Relation): GraphEdge[] {
    return this.collectEdges(id, 'out', relation);
  }

  /** Live edges into a node as records (convenience; use forEachIn in hot loops). */
  incoming(id: string, relation?: Relation): GraphEdge[] {
    return this.collectEdges(id, 'in', relation);
  }

  private collectEdges(id: string, dir: 'in' | 'out', relation?: Relation): GraphEdge[] {
    const i = this.indexOf(id);
    if (i < 0) return [];
    const code = relation === undefined ? -1 : RELATION_CODE[relation];
    const out: GraphEdge[] = [];
    const visit = (_other: number, _w: number, rel: number, e: number): void => {
      if (code < 0 || rel === code) out.push(this.edge(e)!);
    };
    if (dir === 'out') this.forEachOut(i, visit);
    else this.forEachIn(i, visit);
    return out;
  }

  /** Live edge counts per relation. */
  edgeCountsByRelation(): Record<Relation, number> {
    const counts = Object.fromEntries(RELATIONS.map((r) => [r, 0])) as Record<Relation, number>;
    for (let e = 0; e < this.edgeTop; e++) if (this.edgeAlive[e]) counts[RELATIONS[this.edgeRelation[e]]]++;
    return counts;
  }

  /** Live node counts per kind. */
  nodeCountsByKind(): Record<NodeKind, number> {
    const counts: Record<NodeKind, number> = { file: 0, module: 0, class: 0, interface: 0, function: 0, method: 0, type: 0, section: 0 };
    for (let i = 0; i < this.nodeCapacity; i++) {
      const n = this.node(i);
      if (n) counts[n.kind]++;
    }
    return counts;
  }
}
