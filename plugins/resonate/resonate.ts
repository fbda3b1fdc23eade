/**
 * resonate (back-compat): the dominant structural modes of the subgraph around a query or node, and
 * the node pairs that respond alike across those modes (structurally equivalent: same kind of
 * place in the graph), each score explained.
 */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../core/index.ts';
import { RELATION_CODE, runStepsPaced, slicePace, type CodeGraphEngine, type GraphNode, type GraphService } from '../graph/api.ts';
import { dominantModeSteps, type SymmetricGraph } from './spectrum.ts';

/** Hops around the seeds, and the most nodes analysed (nearest first). */
const RADIUS = 2;
const MAX_NODES = 300;
/** Modes computed; the first (the subgraph's main body) is reported but not used for pairing. */
const MODES = 6;
/** Query matches used as seeds. */
const QUERY_SEEDS = 5;

/** Main-thread time the analysis takes before it gives the event loop back (other calls wait at most about this). */
const SLICE_MS = 8;

const round = (x: number) => Math.round(x * 1000) / 1000;

export const resonateVerb = defineVerb({
  name: 'resonate',
  description: 'Back-compat: structural modes of the subgraph around a query or node, and node pairs that respond alike. Prefer activate.',
  input: Type.Object({
    query: Type.Optional(Type.String({ minLength: 1 })),
    node_id: Type.Optional(Type.String({ minLength: 1 })),
    agent_id: AgentId,
    top_k: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Node pairs to return' }),
  }),
  output: Type.Object({
    seeds: Type.Array(Type.String()),
    subgraph: Type.Object({ truncated: Type.Optional(Type.Boolean()), nodes: Type.Number(), edges: Type.Number(), radius: Type.Number() }),
    modes: Type.Array(Type.Object({})),
    pairs: Type.Array(Type.Object({})),
    method: Type.String(),
    use_instead: Type.String(),
  }),
  tiers: [],
  advertised: false,
  replacedBy: 'activate',
  effect: 'read',
  stages: ['diagnose'],
  guide:
    'Kept for m1nd compatibility; activate (spreading activation) answers "what is related to X" better. ' +
    'Seeds: node_id and/or the best matches of query. The subgraph is everything within 2 hops (any relation, either direction; at most 300 nodes, nearest first), with edge weights summed both ways. ' +
    'Modes are the top eigenvectors of its normalised adjacency D^-1/2·A·D^-1/2 (subspace power iteration): mode 1 is the main body (loadings ≈ how central a node is to the subgraph), later modes are splits (positive and negative poles are the groups the mode separates). ' +
    'Pairs are scored by the cosine of their loadings over modes 2+ (weighted by eigenvalue) × the smaller share of the two nodes\' links that lie inside the subgraph (a node at its edge loads by the few links left; pairs scoring 0.5 or less are not listed): nodes that load alike sit in the same place of the structure — typically siblings with the same callers and callees — linked by an edge or not. A container and its own content are never paired (they load alike trivially).',
  handler: async (args, call) => {
    if (args.query === undefined && args.node_id === undefined) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'resonate needs query or node_id', { hint: 'resonate({"agent_id":"…","query":"what to analyse"}); or use activate' });
    }
    const engine = await call.service<GraphService>('graph').requireGraph();
    const g = engine.graph;
    const seeds = new Set<string>();
    if (args.node_id !== undefined) seeds.add(strictNode(engine, args.node_id).id);
    if (args.query !== undefined) {
      await engine.prepareSeek(); // the seek index loaded or built in background slices, not at once by this seek
      for (const h of engine.seek(args.query, { topK: QUERY_SEEDS, minScore: 0.1 }).results) seeds.add(h.id);
    }
    if (seeds.size === 0) {
      throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `nothing in the graph matches "${args.query}"`, { hint: 'rephrase the query, or pass node_id' });
    }

    // The subgraph: BFS both directions from the seeds, nearest first.
    const order: number[] = [...seeds].map((id) => g.indexOf(id));
    const local = new Map<number, number>(order.map((i, k) => [i, k]));
    let frontier = [...order];
    let truncated = false;
    for (let hop = 0; hop < RADIUS && frontier.length && !truncated; hop++) {
      const next: number[] = [];
      const reach = (j: number) => {
        if (local.has(j)) return;
        if (order.length >= MAX_NODES) {
          truncated = true;
          return;
        }
        local.set(j, order.length);
        order.push(j);
        next.push(j);
      };
      for (const i of frontier) {
        g.forEachOut(i, (t) => reach(t));
        g.forEachIn(i, (s) => reach(s));
      }
      frontier = next;
    }
    const n = order.length;
    const pace = slicePace(SLICE_MS);
    const sym: SymmetricGraph = { n, neighbours: order.map(() => []) };
    // A pair of local indices as one number: min · n + max.
    const pairKey = (a: number, b: number) => (a < b ? a * n + b : b * n + a);
    const weights = new Map<number, number>();
    let edgeCount = 0;
    for (const i of order) {
      g.forEachOut(i, (t, w) => {
        const a = local.get(i)!;
        const b = local.get(t);
        if (b === undefined || a === b) return;
        const key = pairKey(a, b);
        weights.set(key, (weights.get(key) ?? 0) + w);
        edgeCount++;
      });
    }
    for (const [key, w] of weights) {
      const a = Math.floor(key / n);
      const b = key - a * n;
      sym.neighbours[a].push([b, w]);
      sym.neighbours[b].push([a, w]);
    }
    await pace();

    const modes = (await runStepsPaced(dominantModeSteps(sym, MODES), pace))!;
    const node = (k: number): GraphNode => g.node(order[k])!;
    const shownModes = modes.slice(0, 4).map((m, idx) => {
      const loadings = [...m.vector].map((v, k) => ({ k, v })).filter((x) => Math.abs(x.v) > 1e-6);
      const by = (sign: 1 | -1) =>
        loadings
          .filter((x) => Math.sign(x.v) === sign)
          .sort((a, b) => Math.abs(b.v) - Math.abs(a.v))
          .slice(0, 5)
          .map((x) => ({ id: node(x.k).id, label: node(x.k).label, loading: round(x.v) }));
      const positive = by(1);
      const negative = by(-1);
      return {
        mode: idx + 1,
        eigenvalue: round(m.eigenvalue),
        reads: negative.length === 0 ? 'main body: loadings say how much each node takes part in it' : 'a split: the two poles are groups of nodes this mode separates',
        ...(negative.length === 0 ? { strongest: positive } : { poles: { positive, negative } }),
      };
    });

    // Pairs: cosine over modes 2+ (eigenvalue-weighted); with fewer modes, over all of them.
    const used = modes.length > 2 ? modes.slice(1) : modes;
    const dims = used.length;
    // Node k's eigenvalue-weighted loadings at embed[k·dims …].
    const embed = new Float64Array(n * dims);
    const norms = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      let s = 0;
      for (let d = 0; d < dims; d++) {
        const x = Math.max(0, used[d].eigenvalue) * used[d].vector[k];
        embed[k * dims + d] = x;
        s += x * x;
      }
      norms[k] = Math.sqrt(s);
    }
    // A container and its content load alike trivially (the one edge is most of their structure): left out.
    const nested = new Set<number>();
    for (const i of order) {
      g.forEachOut(i, (t, _w, relation) => {
        const b = local.get(t);
        if (b === undefined || relation !== RELATION_CODE.contains) return;
        nested.add(pairKey(local.get(i)!, b));
      });
    }
    // How much of each node's structure the subgraph holds: the weight of its links inside ÷ all its
    // links. A node at the edge (most links cut off) loads by the few left: two such nodes linked only
    // to one shared node load exactly alike whatever they are (on httpx, the class Limits and a
    // CHANGELOG section at cosine 1). A pair's score is its cosine × the smaller share.
    const inside = new Float64Array(n);
    const total = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const count = (j: number, w: number) => {
        if (j === order[k]) return;
        total[k] += w;
        if (local.has(j)) inside[k] += w;
      };
      g.forEachOut(order[k], (t, w) => count(t, w));
      g.forEachIn(order[k], (src, w) => count(src, w));
      if ((k & 63) === 63) await pace();
    }
    const share = (k: number) => (total[k] > 0 ? inside[k] / total[k] : 1);
    const pairs: { a: number; b: number; cos: number; score: number }[] = [];
    for (let a = 0; a < n; a++) {
      await pace();
      if (norms[a] < 1e-9 || share(a) <= 0.5) continue;
      for (let b = a + 1; b < n; b++) {
        if (norms[b] < 1e-9 || nested.has(pairKey(a, b))) continue;
        let s = 0;
        for (let d = 0; d < dims; d++) s += embed[a * dims + d] * embed[b * dims + d];
        const cos = s / (norms[a] * norms[b]);
        const score = cos * Math.min(share(a), share(b));
        if (score > 0.5) pairs.push({ a, b, cos, score });
      }
    }
    // Scores equal to 1e-9 are ties (floating-point noise must not pick among them): then by ids.
    const tie = (x: number) => Math.round(x * 1e9);
    pairs.sort((x, y) => tie(y.score) - tie(x.score) || node(x.a).id.localeCompare(node(y.a).id) || node(x.b).id.localeCompare(node(y.b).id));
    const neighbourSet = (k: number) => new Set(sym.neighbours[k].map(([j]) => j));
    const shownPairs = pairs.slice(0, args.top_k).map(({ a, b, cos, score }) => {
      const na = neighbourSet(a);
      const shared = [...neighbourSet(b)].filter((j) => na.has(j));
      const linked = na.has(b);
      const pct = (k: number) => `${Math.round(share(k) * 100)}%`;
      const why = [`load alike on modes ${used.length === modes.length ? `1–${used.length}` : `2–${modes.length}`} (cosine ${round(cos)}), ${pct(a)} and ${pct(b)} of their links inside the subgraph`];
      if (shared.length) why.push(`share ${shared.length} neighbour${shared.length === 1 ? '' : 's'}: ${shared.slice(0, 3).map((j) => node(j).label).join(', ')}`);
      if (linked) why.push('directly linked');
      return { a: { id: node(a).id, label: node(a).label }, b: { id: node(b).id, label: node(b).label }, score: round(score), cosine: round(cos), linked, shared_neighbours: shared.length, why: why.join('; ') };
    });
    return {
      seeds: [...seeds],
      subgraph: { nodes: sym.n, edges: edgeCount, radius: RADIUS, ...(truncated ? { truncated: true } : {}) },
      modes: shownModes,
      pairs: shownPairs,
      method: 'modes: top eigenvectors of the normalised adjacency D^-1/2·A·D^-1/2 (power iteration); pairs: cosine of eigenvalue-weighted loadings over modes 2+ × the smaller share of the two nodes\' links inside the subgraph',
      use_instead: 'activate',
    };
  },
});

/** A node by id, path or exact name (never a loose text match); did-you-mean otherwise. */
function strictNode(engine: CodeGraphEngine, text: string): GraphNode {
  const match = engine.findNodes(text, { limit: 1 })[0];
  if (match && match.via !== 'seek') return match.node;
  const near = engine.findNodes(text, { limit: 3 }).map((m) => m.node.id);
  throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `no node "${text}"`, {
    hint: near.length ? `did you mean ${near.map((x) => `"${x}"`).join(', ')}?` : 'find ids with seek',
  });
}

