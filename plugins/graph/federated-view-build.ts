/**
 * The federated view's composite graph, built in slices: every member's nodes under `<repo>::` ids
 * and paths (read in place, federated-composite.ts), every member edge kept, and the
 * cross-repository links added as edges.
 * Background work (it runs before the first call on a new or changed federation): it yields by the
 * turn's shared budget (SliceClock), so other calls wait a few milliseconds at most.
 */
import { DEFAULT_WEIGHTS, moduleNodeId, RELATION_CODE, type CodeGraph, type Relation } from './engine/graph.ts';
import { CompositeGraph } from './federated-composite.ts';
import { SliceClock } from './engine/steps.ts';
import { NAMESPACE_SEPARATOR, namespaceOf, type FederationLink, type FederationMember } from './federated-view-names.ts';

const CONTAINS = RELATION_CODE.contains;
/** Weight of a manifest dependency edge (grouping evidence, weaker than an import of a symbol). */
const DEPENDS_ON_WEIGHT = 0.6;
/**
 * Main-thread time the view's build (edge copy, seek index, PageRank) takes before it yields to the event
 * loop: background work, under the turn's shared budget.
 */
export const BUILD_SLICE_MS = 2;
/** Items copied between two looks at the clock. */
const CHECK_EVERY = 64;

/** Yields when the turn's budget is spent (`due` is cheap: it reads the clock every CHECK_EVERY items). */
class Slicer {
  private readonly clock = new SliceClock(BUILD_SLICE_MS);
  private count = 0;
  due(): boolean {
    return ++this.count % CHECK_EVERY === 0 && this.clock.spent();
  }
  /** The turn's budget is spent (for steps that are each many items). */
  spent(): boolean {
    return this.clock.spent();
  }
  yield(): Promise<void> {
    return this.clock.yield();
  }
}

/** The composite graph of `members` with `links`, finalized, and the cross edges added by relation. */
export async function buildComposite(members: readonly FederationMember[], links: readonly FederationLink[]): Promise<{ graph: CodeGraph; counts: Record<FederationLink['relation'], number> }> {
  // The members' nodes are read in place (federated-composite.ts); only their edges are copied.
  const g = new CompositeGraph(members.map((m) => ({ name: m.name, graph: m.engine.graph, nested: m.nested })));
  const slicer = new Slicer();
  for (const _ of g.nestSteps()) if (slicer.spent()) await slicer.yield();
  // Edges between a member's own files and a nested member's folder, tied to the nested member's nodes (`source|target|relation`).
  const across = new Set<string>();
  for (const [k, m] of members.entries()) {
    const src = m.engine.graph;
    const { base, slots } = g.member(k);
    const nested = (m.nested?.length ?? 0) > 0;
    for (let e = 0; e < src.edgeCapacity; e++) {
      if (slicer.due()) await slicer.yield();
      if (!src.isEdgeAlive(e)) continue;
      const s = src.edgeSource[e];
      const t = src.edgeTarget[e];
      // An edge the member added after the slots were read (to a node the view does not hold yet) waits for the next build.
      if (slots[s] && slots[t]) g.addEdge(base + s, base + t, src.edgeRelation[e], src.edgeWeight[e]);
      // An end in a nested member's folder: tied to that member's node (an edge inside the folder is the member's own).
      else if (nested && src.edgeRelation[e] !== CONTAINS) g.tieAcross(k, s, t, src.edgeRelation[e], src.edgeWeight[e], across);
    }
  }
  g.settled();
  const counts = { depends_on: 0, imports: 0, calls: 0, inherits: 0, references: 0 };
  // A file the graph does not parse (package.json, go.mod, a .proto, …) stands for its repository: its root module.
  const endpoint = (id: string) => {
    const i = g.indexOf(id);
    const ns = namespaceOf(id);
    return i >= 0 || ns === null || !id.startsWith(`${ns}${NAMESPACE_SEPARATOR}file:`) ? i : g.indexOf(`${ns}${NAMESPACE_SEPARATOR}${moduleNodeId('.')}`);
  };
  for (const l of links) {
    if (slicer.due()) await slicer.yield();
    const s = endpoint(l.source);
    const t = endpoint(l.target);
    if (s < 0 || t < 0) continue;
    const relation: Relation = l.relation === 'depends_on' ? 'imports' : l.relation;
    // Evidence for an edge tied across above (an import by package name the outer member resolved into the folder): one edge.
    if (!across.has(`${s}|${t}|${RELATION_CODE[relation]}`)) g.addEdge(s, t, RELATION_CODE[relation], l.relation === 'depends_on' ? DEPENDS_ON_WEIGHT : DEFAULT_WEIGHTS[relation]);
    counts[l.relation]++;
  }
  // The CSR in steps too (~3 ms in one go for two stdlib halves): nothing else writes to `g` meanwhile.
  for (const _ of g.finalizeSteps()) if (slicer.spent()) await slicer.yield();
  return { graph: g, counts };
}
