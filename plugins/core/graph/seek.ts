/** seek: purpose-oriented search (BM25F over names, signatures, docs, bodies, paths; kind priors), re-ranked by graph centrality. */
import { AgentId, countTokens, defineVerb, ErrorCodes, M1ndError, packToTokenBudget, StringEnum, Type } from '../../../core/index.ts';
import { nearNamesPaced, pathScope, slicePace, yieldToLoop, type CodeGraphEngine, type NodeKind, type PathScope } from '../../graph/api.ts';
import { NodeTypes, queryGraphOf, TokenBudget } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';

export const seekVerb = defineVerb({
  name: 'seek',
  description: 'Find code by purpose ("where are retries handled"): symbols ranked by BM25F over names, signatures, docs, bodies and paths; functions before types, docs and tests; re-ranked by centrality.',
  input: Type.Object({
    agent_id: AgentId,
    query: Type.String({ minLength: 1 }),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 20 }),
    scope: Type.Optional(Type.String({ description: 'Only under this path' })),
    node_types: NodeTypes,
    min_score: Type.Number({ minimum: 0, maximum: 1, default: 0.1 }),
    graph_rerank: Type.Boolean({ default: true }),
    runtime_heat: Type.Boolean({ default: false, description: 'Rank nodes hot in runtime_overlay spans up' }),
    token_budget: Type.Optional(TokenBudget),
    tier: Type.Optional(StringEnum(['project', 'medulla', 'project+medulla', 'all-brains'] as const, { description: 'Memory tier; this server has the project tier' })),
  }),
  output: Type.Object({
    sufficiency: Type.String(),
    generation: Type.Number(),
    stale: Type.Boolean(),
    budget: Type.Optional(Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() })),
    query: Type.String(),
    tier: Type.String(),
    results: Type.Array(Type.Object({})),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['find', 'orient'],
  next: 'view',
  guide:
    'A query that is one code identifier (`HeaderParsr.parsestr`, `parse_hedaer`: a dot, `#`, an underscore, a camelCase hump or a leading capital, no spaces) reads as a name: unless the first result bears it, the symbols that bear it or a name a few edits away (a slip) come first, marked `why.near_name`, then the words\' matches. Free text and a lone lower-case word are ranked by their words only.',
  handler: async (args, call) => {
    if (args.tier === 'medulla' || args.tier === 'all-brains') {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `tier "${args.tier}" needs a shared cross-project store, which this server does not have`, {
        hint: 'omit tier (or pass "project")',
      });
    }
    const graph = queryGraphOf(call);
    const engine = await graph.requireGraph();
    await engine.prepareSeek();
    const scope = pathScope(engine, args.scope);
    // This agent's activation boosts (warmup, trail_resume) re-rank lexical hits; they never add non-matches.
    const boosts = graph.boosts.map(call.agentId, args.runtime_heat ? ['runtime_heat'] : []);
    const found = engine.seek(args.query, {
      topK: boosts.size ? args.top_k * 3 : args.top_k,
      scope: scope.prefix,
      kinds: args.node_types.length ? args.node_types : undefined,
      minScore: boosts.size ? 0 : args.min_score,
      graphRerank: args.graph_rerank,
    });
    let results: SeekResult[] = found.results
      .map((h) => {
        const boost = boosts.get(h.id) ?? 0;
        const score = Math.max(0, Math.min(1, h.score + BOOST_WEIGHT * boost));
        return {
          id: h.id,
          kind: h.kind,
          label: h.label,
          path: h.path,
          lines: [h.startLine, h.endLine],
          score: round(score),
          why: { lexical: round(h.lexical), centrality: round(h.centrality), prior: h.prior, matched: h.matched, ...(boost ? { boost: round(boost) } : {}) },
          ...(h.doc ? { doc: h.doc } : {}),
        };
      })
      .filter((r) => r.score >= args.min_score)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
      .slice(0, args.top_k);
    results = await withSlipsFirst(engine, args.query, results, args.top_k, args.node_types.length ? args.node_types : undefined, scope);
    const packed = args.token_budget ? packToTokenBudget(results, args.token_budget, (r) => countTokens(JSON.stringify(r))) : undefined;
    const shown = (packed ? packed.kept : results).map((r) => engine.getNode(r.id)).filter((n) => n !== null);
    recordVisit(call, engine.root, { nodes: shown });
    return {
      query: args.query,
      tier: 'project',
      results: packed ? packed.kept : results,
      ...(packed ? { budget: packed.report } : {}),
      sufficiency: results.length === 0 ? 'empty' : results[0].score >= 0.5 ? 'sufficient' : 'gathering',
      generation: found.generation,
      stale: found.stale,
    };
  },
});

/** How far a full boost (1.0) lifts a hit's score in [0, 1]. */
const BOOST_WEIGHT = 0.3;

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

type SeekResult = { id: string; kind: string; label: string; path: string; lines: number[]; score: number; why: Record<string, unknown>; doc?: string };

/**
 * A query that is one code identifier (a dot, `#`, an underscore, a camelCase hump or a leading
 * capital in it; no spaces): `Cart.totl`, `HeaderParsr`, `parse_hedaer`.
 */
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*(?:[.#][\p{L}_$][\p{L}\p{N}_$]*)*$/u;
const looksLikeIdentifier = (q: string): boolean => q.length >= 4 && IDENTIFIER.test(q) && /[.#_$]|\p{Ll}\p{Lu}|^\p{Lu}/u.test(q);

/**
 * An identifier that names no node is most likely a slip of the keyboard: the nodes whose name is a
 * few edits away (the did-you-mean scan of node arguments; those bearing it exactly first) lead the
 * results, marked `why.near_name`; the words' matches follow. Skipped when the first result already
 * bears that name.
 */
async function withSlipsFirst(engine: CodeGraphEngine, query: string, results: SeekResult[], topK: number, kinds: readonly NodeKind[] | undefined, scope: PathScope): Promise<SeekResult[]> {
  const q = query.trim();
  if (!looksLikeIdentifier(q)) return results;
  const folded = q.toLowerCase();
  const named = (id: string): boolean => {
    const n = engine.graph.get(id);
    return n != null && (n.label.toLowerCase() === folded || n.qualifiedName?.toLowerCase() === folded);
  };
  if (results.length > 0 && named(results[0].id)) return results;
  // The scan (~18 ms over 74K nodes) in 8 ms slices, the first in a turn of its own (after the query's).
  await yieldToLoop();
  const near = (await nearNamesPaced(engine.graph, q, 3, slicePace(8), kinds)).filter((id) => {
    const n = engine.graph.get(id)!;
    return n.kind !== 'file' && scope.has(n.path);
  });
  if (near.length === 0) return results;
  const top = results[0]?.score ?? 0;
  const lead = near.map((id): SeekResult => {
    const had = results.find((r) => r.id === id);
    if (had) return { ...had, score: Math.max(had.score, top), why: { ...had.why, near_name: true } };
    const n = engine.graph.get(id)!;
    return { id, kind: n.kind, label: n.label, path: n.path, lines: [n.startLine, n.endLine], score: top, why: { near_name: true } };
  });
  return [...lead, ...results.filter((r) => !near.includes(r.id))].slice(0, topK);
}
