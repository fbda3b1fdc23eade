/** activate: spreading activation from a free-text query, ranked and explained per dimension. */
import { AgentId, countTokens, defineVerb, ErrorCodes, M1ndError, packToTokenBudget, StringEnum, Type } from '../../../core/index.ts';
import { RELATION_CODE, type CodeGraph } from '../../graph/api.ts';
import { fileIndexOf, relationCounts } from '../../graph/api.ts';
import { DEPENDENCY_RELATIONS } from '../../graph/api.ts';
import { nodeRef, TokenBudget } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, round3 } from './graph-call.ts';
import { activationReady, activateQuery, DIMENSIONS, type ActivatedNode, type Dimension } from './query-activation.ts';
import { bridgingNodes, explainActivation } from './activation-results.ts';

export const activateVerb = defineVerb({
  name: 'activate',
  description: 'Spreading activation from a query over the code graph: ranked nodes with per-dimension scores and the path that reached each.',
  input: Type.Object({
    agent_id: AgentId,
    query: Type.String({ minLength: 1 }),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
    dimensions: Type.Array(StringEnum(DIMENSIONS), { default: [...DIMENSIONS] }),
    xlr: Type.Boolean({ default: true, description: 'Cancel generic hub activation' }),
    include_ghost_edges: Type.Boolean({ default: true, description: 'Use git co-change edges' }),
    include_structural_holes: Type.Boolean({ default: false, description: 'List nodes bridging results' }),
    runtime_heat: Type.Boolean({ default: false, description: 'Rank nodes hot in runtime_overlay spans up' }),
    token_budget: Type.Optional(TokenBudget),
  }),
  output: Type.Object({
    candidates: Type.Number(),
    elapsed_ms: Type.Number(),
    truncated: Type.Optional(Type.Boolean()),
    structural_holes: Type.Optional(Type.Array(Type.Object({}))),
    ghost_edges: Type.Optional(Type.Union([Type.Array(Type.Object({})), Type.Object({ note: Type.String() })])),
    xlr: Type.Optional(Type.Object({ anti_seeds: Type.Array(Type.Unknown()), suppressed: Type.Number() })),
    unavailable: Type.Optional(Type.Object({ semantic: Type.Optional(Type.String()), structural: Type.Optional(Type.String()), temporal: Type.Optional(Type.String()), causal: Type.Optional(Type.String()) })),
    seeds: Type.Array(Type.String()),
    dimensions: Type.Array(Type.String()),
    budget: Type.Optional(Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() })),
    query: Type.String(),
    results: Type.Array(Type.Object({})),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['find', 'orient', 'diagnose'],
  next: 'view',
  guide: [
    'Seeds come from `seek`\'s ranking (names, signatures, docs, bodies, paths; the function doing the work before types and tests), exact ids or paths, and words taught with `learn`. Each result carries the dimensions it scored on:',
    '- `structural`: best-first propagation over every relation in both directions (hubs damped), plus a bonus where several activated neighbours converge;',
    '- `semantic`: the node\'s own seek score, relative to the best hit;',
    '- `temporal`: git recency and churn of its file (unavailable without git history);',
    '- `causal`: dependency edges only, forward, backward at 0.7.',
    '',
    'Scores merge 0.35/0.5/0.15/0.25 (structural/semantic/temporal/causal) over the requested dimensions, then apply `learn` feedback and your `warmup` boosts. Querying never changes weights. As in `seek`, a type (a constructor) ranked above a method of its class gives that method its place and score and follows it, unless the query names the type (asks how objects are made).',
    '`xlr` subtracts what cold pulses from look-alike anti-seeds also reach (generic hubs). `include_ghost_edges` walks co-change edges and lists file pairs among the results that change together in git with no static edge. `include_structural_holes` lists nodes that connect several results without matching the query.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    const dims = [...new Set(args.dimensions)] as Dimension[];
    if (dims.length === 0) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'dimensions is empty: nothing to score on', { hint: `pass some of ${DIMENSIONS.join(', ')} (or omit it for all four)` });
    }
    await activationReady(engine);
    const outcome = await activateQuery(graph, engine, {
      query: args.query,
      agentId: call.agentId,
      dimensions: dims,
      topK: args.top_k,
      xlr: args.xlr,
      ghostEdges: args.include_ghost_edges,
      overlays: args.runtime_heat ? ['runtime_heat'] : [],
    });
    if (outcome.dimensionsUsed.length === 0) {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `no requested dimension can be computed: ${Object.entries(outcome.unavailable).map(([d, why]) => `${d} (${why})`).join(', ')}`, {
        hint: 'add structural, semantic or causal to dimensions',
      });
    }
    const rows = outcome.results.map((r) => ({
      ...nodeRef(r.node),
      score: round3(r.score),
      dims: Object.fromEntries(outcome.dimensionsUsed.map((d) => [d, round3(r.dims[d])])),
      why: explainActivation(g, outcome, r),
    }));
    const packed = args.token_budget ? packToTokenBudget(rows, args.token_budget, (r) => countTokens(JSON.stringify(r))) : undefined;
    const kept = packed ? outcome.results.slice(0, packed.kept.length) : outcome.results;
    const ghost = args.include_ghost_edges ? ghostCouplings(g, kept) : undefined;
    const holes = args.include_structural_holes
      ? bridgingNodes(g, kept, 10).map((h) => ({ ...nodeRef(g.node(h.index)!), connects: h.neighbours.map((n) => g.node(n)!.id), support: round3(h.support) }))
      : undefined;
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: kept.map((r) => r.node), query: { subject: args.query, results: kept.length, elapsedMs } });
    return {
      query: args.query,
      results: packed ? packed.kept : rows,
      ...(packed ? { budget: packed.report } : {}),
      seeds: outcome.seeds.slice(0, 5).map((s) => g.node(s.index)!.id),
      dimensions: outcome.dimensionsUsed,
      ...(Object.keys(outcome.unavailable).length ? { unavailable: outcome.unavailable } : {}),
      ...(outcome.xlr ? { xlr: { anti_seeds: outcome.xlr.antiSeeds.map((i) => g.node(i)!.id), suppressed: outcome.xlr.suppressed } } : {}),
      ...(ghost ? { ghost_edges: ghost } : {}),
      ...(holes ? { structural_holes: holes } : {}),
      ...(outcome.truncated ? { truncated: true } : {}),
      candidates: outcome.candidates,
      elapsed_ms: round3(elapsedMs),
    };
  },
});

/**
 * File pairs among the results' files that change together in git (co_changes) but share no static
 * edge (imports, calls, references, inheritance) in either direction: coupling the code does not show.
 */
function ghostCouplings(g: CodeGraph, results: readonly ActivatedNode[]): { files: [string, string]; weight: number }[] | { note: string } {
  const fileOf = fileIndexOf(g);
  const files = [...new Set(results.map((r) => fileOf[r.index]).filter((f) => f >= 0))];
  const co = RELATION_CODE.co_changes;
  if (relationCounts(g).co_changes === 0) return { note: 'no co-change edges: the workspace has no git history in the graph' };
  const dep = new Set(DEPENDENCY_RELATIONS.map((r) => RELATION_CODE[r]));
  const linked = new Map<number, Set<number>>();
  const staticLinks = (f: number): Set<number> => {
    let set = linked.get(f);
    if (set) return set;
    set = new Set();
    const path = g.node(f)!.path;
    const stack = [f];
    const seen = new Set(stack);
    while (stack.length) {
      const u = stack.pop()!;
      g.forEachOut(u, (t, _w, rel) => {
        if (rel === RELATION_CODE.contains && g.node(t)?.path === path && !seen.has(t)) {
          seen.add(t);
          stack.push(t);
        } else if (dep.has(rel) && fileOf[t] >= 0) set!.add(fileOf[t]);
      });
    }
    linked.set(f, set);
    return set;
  };
  const inSet = new Set(files);
  const out: { files: [string, string]; weight: number }[] = [];
  for (const f of files) {
    g.forEachOut(f, (t, w, rel) => {
      if (rel !== co || !inSet.has(t) || t < f) return;
      if (staticLinks(f).has(t) || staticLinks(t).has(f)) return;
      out.push({ files: [g.node(f)!.path, g.node(t)!.path], weight: round3(w) });
    });
  }
  return out.sort((a, b) => b.weight - a.weight).slice(0, 10);
}
