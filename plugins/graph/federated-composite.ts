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
 */
import { CodeGraph, type GraphNode } from './engine/graph.ts';
import { NAMESPACE_SEPARATOR } from './federated-view-names.ts';

/** One member's share of the composite. */
interface Part {
  name: string;
  base: number;
  /** The member's node slots at build time. */
  slots: readonly (GraphNode | null)[];
  /** The member graph, for id lookups (checked against `slots`). */
  graph: CodeGraph;
  /** `<repo>::path` of each path read so far (one string a file, shared by its nodes' copies). */
  paths: Map<string, string>;
}

function readOnly(): never {
  throw new Error('the composite graph is read-only: rebuild the federated view instead');
}

/** Several member graphs as one graph of namespaced nodes (see the file comment). */
export class CompositeGraph extends CodeGraph {
  private readonly parts: Part[] = [];
  private readonly byName = new Map<string, Part>();
  private readonly slotCount: number;
  private readonly liveCount: number;

  constructor(members: readonly { name: string; graph: CodeGraph }[]) {
    super();
    let base = 0;
    let live = 0;
    for (const m of members) {
      const slots = m.graph.nodeSlots();
      const part: Part = { name: m.name, base, slots, graph: m.graph, paths: new Map() };
      this.parts.push(part);
      this.byName.set(m.name, part);
      base += slots.length;
      live += m.graph.nodeCount;
    }
    this.slotCount = base;
    this.liveCount = live;
  }

  /** Member `k`'s first index and its node slots (for copying its edges). */
  member(k: number): { base: number; slots: readonly (GraphNode | null)[] } {
    const p = this.parts[k];
    return { base: p.base, slots: p.slots };
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
