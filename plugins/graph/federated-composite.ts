/**
 * The federated view's composite graph: its members' nodes are not copied. Member `k` owns the index
 * range [base_k, base_k + its slot count), read from the member's node slots as they were when the
 * view was built (a shallow copy of the slot array, one allocation a member); `node(i)` answers with a
 * `<repo>::` namespaced copy made on each read, and `nodeKey(i)` with the member's node, so caches see
 * a node change exactly when the member replaced it. Edges are the composite's own (copied into its
 * typed arrays with the cross-repository links, federated-view-build.ts).
 *
 * Why not copy: a copy of every member node at build time (tens of thousands of objects and id
 * strings that all survive) made the view build's garbage collections promote 5–9 MB each and hold
 * the event loop 10–20 ms; a copy per read is young garbage, which a scavenge does not copy.
 *
 * A member's nodes under another member's root inside its own (`nested`, federated-nesting.ts) are
 * emptied slots: those files are the inner member's, held once, under its namespace.
 */
import { CodeGraph, type GraphNode } from './engine/graph.ts';
import { counterpartId, nestedFolderOf, type NestedFolder } from './federated-nesting.ts';
import { NAMESPACE_SEPARATOR } from './federated-view-names.ts';

/** Nodes of a member's graph given to a member nested in it, per nested folder. */
export interface GivenAway {
  repo: string;
  folder: string;
  files: number;
  nodes: number;
  /** Edges between the member's own nodes and the folder's, tied to the nested member's nodes instead. */
  edges: number;
}

/** Nodes the nest step looks at between two yields. */
const NEST_STEP = 4096;

/** One member's share of the composite. */
interface Part {
  name: string;
  base: number;
  /** The member's node slots at build time (emptied under its nested folders). */
  slots: (GraphNode | null)[];
  /** The member graph, for id lookups (checked against `slots`). */
  graph: CodeGraph;
  /** `<repo>::path` of each path read so far (one string a file, shared by its nodes' copies). */
  paths: Map<string, string>;
  /** Folders of this member that are other members' roots. */
  nested: readonly NestedFolder[];
  /** Live nodes in the view. */
  live: number;
  /** The emptied slots' nodes, by member index, while the view's edges are copied (null after). */
  moved: Map<number, GraphNode> | null;
  /** What the emptied slots held, per nested folder. */
  given: Map<string, GivenAway>;
}

function readOnly(): never {
  throw new Error('the composite graph is read-only: rebuild the federated view instead');
}

/** Several member graphs as one graph of namespaced nodes (see the file comment). */
export class CompositeGraph extends CodeGraph {
  private readonly parts: Part[] = [];
  private readonly byName = new Map<string, Part>();
  private readonly slotCount: number;
  private liveCount: number;

  constructor(members: readonly { name: string; graph: CodeGraph; nested?: readonly NestedFolder[] }[]) {
    super();
    let base = 0;
    let live = 0;
    for (const m of members) {
      const slots = m.graph.nodeSlots();
      const nested = m.nested ?? [];
      const part: Part = { name: m.name, base, slots, graph: m.graph, paths: new Map(), nested, live: m.graph.nodeCount, moved: nested.length ? new Map() : null, given: new Map() };
      this.parts.push(part);
      this.byName.set(m.name, part);
      base += slots.length;
      live += m.graph.nodeCount;
    }
    this.slotCount = base;
    this.liveCount = live;
  }

  /**
   * Empties the slots of each member's nodes under its nested folders (in steps: a caller runs it
   * in slices), keeping them aside until `settled()` for `tieAcross`.
   */
  *nestSteps(): Generator<void, void> {
    for (const p of this.parts) {
      if (!p.moved) continue;
      for (let i = 0; i < p.slots.length; i++) {
        if (i % NEST_STEP === NEST_STEP - 1) yield;
        const n = p.slots[i];
        const f = n ? nestedFolderOf(n.path, p.nested) : null;
        if (!n || !f) continue;
        p.moved.set(i, n);
        p.slots[i] = null;
        p.live--;
        this.liveCount--;
        let given = p.given.get(f.folder);
        if (!given) p.given.set(f.folder, (given = { repo: f.member, folder: f.folder, files: 0, nodes: 0, edges: 0 }));
        given.nodes++;
        if (n.kind === 'file') given.files++;
      }
    }
  }

  /**
   * Member `k`'s edge between its nodes `s` and `t`, one or both left out (under nested folders), as
   * an edge between the nested members' nodes for the same files or symbols: a cross-repository
   * edge, added unless `seen` holds its `source|target|relation` key already (which it then does).
   * Both ends in one folder is that member's own edge: left to it. False when nothing was added.
   */
  tieAcross(k: number, s: number, t: number, relation: number, weight: number, seen: Set<string>): boolean {
    const p = this.parts[k];
    const from = p.moved?.get(s);
    const to = p.moved?.get(t);
    const fromFolder = from ? nestedFolderOf(from.path, p.nested) : null;
    const toFolder = to ? nestedFolderOf(to.path, p.nested) : null;
    if ((!from && !p.slots[s]) || (!to && !p.slots[t]) || fromFolder === toFolder) return false;
    const a = from ? this.counterpart(from, fromFolder!) : p.base + s;
    const b = to ? this.counterpart(to, toFolder!) : p.base + t;
    const key = `${a}|${b}|${relation}`;
    if (a < 0 || b < 0 || seen.has(key)) return false;
    seen.add(key);
    this.addEdge(a, b, relation, weight);
    const given = p.given.get((fromFolder ?? toFolder)!.folder);
    if (given) given.edges++;
    return true;
  }

  /** The view's index of the nested member's node standing for a left-out node under folder `f`, or -1. */
  private counterpart(n: GraphNode, f: NestedFolder): number {
    const id = counterpartId(n, f);
    return id === null ? -1 : this.indexOf([f.member, NAMESPACE_SEPARATOR, id].join(''));
  }

  /** The view is built: the left-out nodes are let go. */
  settled(): void {
    for (const p of this.parts) p.moved = null;
  }

  /** Member `k`'s first index and its node slots (for copying its edges). */
  member(k: number): { base: number; slots: readonly (GraphNode | null)[] } {
    const p = this.parts[k];
    return { base: p.base, slots: p.slots };
  }

  /** Each member's live nodes in the view, and what it gave to the members nested in it. */
  memberCounts(): { name: string; nodes: number; nested: GivenAway[] }[] {
    return this.parts.map((p) => ({ name: p.name, nodes: p.live, nested: [...p.given.values()] }));
  }

  override get nodeCapacity(): number {
    return this.slotCount;
  }

  override get nodeCount(): number {
    return this.liveCount;
  }

  override node(index: number): GraphNode | null {
    const p = this.partOf(index);
    const n = p?.slots[index - p.base];
    if (!p || !n) return null;
    let path = p.paths.get(n.path);
    if (path === undefined) p.paths.set(n.path, (path = [p.name, NAMESPACE_SEPARATOR, n.path].join('')));
    return { ...n, id: [p.name, NAMESPACE_SEPARATOR, n.id].join(''), path };
  }

  override nodeKey(index: number): object | null {
    const p = this.partOf(index);
    return p?.slots[index - p.base] ?? null;
  }

  override nodeSlots(): (GraphNode | null)[] {
    return Array.from({ length: this.slotCount }, (_, i) => this.node(i));
  }

  override indexOf(id: string): number {
    const at = id.indexOf(NAMESPACE_SEPARATOR);
    const p = at > 0 ? this.byName.get(id.slice(0, at)) : undefined;
    if (!p) return -1;
    const rest = id.slice(at + NAMESPACE_SEPARATOR.length);
    // The member's id map is live, its slots as built: a node the member moved or dropped since is
    // missing until the view's next freshness check rebuilds it (every verb makes one first).
    const local = p.graph.indexOf(rest);
    return local >= 0 && local < p.slots.length && p.slots[local]?.id === rest ? p.base + local : -1;
  }

  override get(id: string): GraphNode | null {
    const i = this.indexOf(id);
    return i < 0 ? null : this.node(i);
  }

  override *nodes(): IterableIterator<[number, GraphNode]> {
    for (let i = 0; i < this.slotCount; i++) {
      const n = this.node(i);
      if (n) yield [i, n];
    }
  }

  override upsertNode(): number {
    return readOnly();
  }

  override removeNode(): number[] {
    return readOnly();
  }

  override *restore(): Generator<void, void> {
    readOnly();
  }

  private partOf(index: number): Part | null {
    if (index < 0 || index >= this.slotCount) return null;
    const parts = this.parts;
    for (let k = parts.length - 1; k >= 0; k--) if (index >= parts[k].base) return parts[k];
    return null;
  }
}
