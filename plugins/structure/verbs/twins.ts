/** twins: structurally near-identical functions and classes — normalised AST shape plus graph signature, found by LSH. */
import { AgentId, defineVerb, packToTokenBudgetPaced, StringEnum, Type } from '../../../core/index.ts';
import { sharedFeatureNames, warmSignatures, type GraphNode } from '../../graph/api.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';
import { collectShapes } from '../shapes.ts';
import { TwinScorer, type TwinPair } from '../twin-pairs.ts';

/** Shapes smaller than this are one-liners: they would all look alike. */
const MIN_TOKENS = 30;
const KINDS = ['function', 'method', 'class'] as const;

export const twinsVerb = defineVerb({
  name: 'twins',
  description: 'Near-identical functions/methods/classes (copy-paste with renames): same normalised AST shape, compared with LSH, with each pair\'s reason.',
  input: Type.Object({
    agent_id: AgentId,
    similarity_threshold: Type.Optional(Type.Number({ minimum: 0.3, maximum: 1, default: 0.8, description: 'Least combined similarity' })),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Most pairs returned' })),
    scope: ScopeParam,
    node_types: Type.Optional(Type.Array(StringEnum([...KINDS]), { maxItems: 3, description: 'Kinds compared (default function, method)' })),
    min_tokens: Type.Optional(Type.Integer({ minimum: 5, maximum: 5000, default: MIN_TOKENS, description: 'Skip symbols with fewer AST tokens' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 4000, description: 'Result size bound' })),
    time_budget_ms: timeBudgetParam(10_000),
  }),
  output: Type.Object({
    pairs: Type.Array(Type.Object({})),
    total: Type.Number(),
    compared: Type.Object({ symbols: Type.Number(), files: Type.Number(), files_total: Type.Number() }),
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  next: 'view',
  guide:
    'similarity = 0.8 × AST Jaccard (5-token shingles of the normalised tree: names and literal values drop out, operators stay) + 0.2 × graph-signature similarity (same calls/references), or the AST score alone when the graph has no features for the pair. Pairs are only compared when MinHash/LSH puts them in a shared bucket, so this scales past pairwise. Kinds compare with their own kind only. A cold call (no scan facts for most files yet) first sketches every symbol from its text (lexical MinHash, no parse) and parses only the candidates with a sketch partner (`compared.files_sketched`, `candidates`); on the stdlib it returned 0.97 of the full comparison\'s pairs (all of the best 500).',
  handler: async (args, call) => {
    const { graph, engine } = await structureCall(call);
    const g = engine.graph;
    const deadline = new Deadline(args.time_budget_ms ?? 10_000, call.signal);
    deadline.progress = (done, total, message) => call.progress(done, total, message);
    const scope = scopeFilter(engine, args.scope);
    const kinds = new Set<string>(args.node_types?.length ? args.node_types : ['function', 'method']);
    const symbols: GraphNode[] = [];
    // Paced: every node of the graph is looked at (~30 ms in one piece on the stdlib).
    for (let i = 0; i < g.nodeCapacity; i++) {
      const n = g.node(i);
      if (n && kinds.has(n.kind) && scope.has(n.path) && n.language !== 'markdown' && n.endLine - n.startLine >= 2) symbols.push(n);
      if ((i & 4095) === 4095) await deadline.pace();
    }
    // The graph part of the score, made while the shapes are computed (mostly in the facts workers).
    const pace = () => deadline.pace();
    const warming = warmSignatures(g, pace);
    warming.catch(() => undefined); // awaited below; until then a failure is not an unhandled rejection
    // A cold call scores each file's symbols as their shapes land (the workers parse on meanwhile); otherwise all at the end.
    const scorer = new TwinScorer(g, kinds, args.similarity_threshold ?? 0.8, args.min_tokens ?? MIN_TOKENS);
    const { shapes, filesDone, filesTotal, workers, fromStore, parsed, cold } = await collectShapes(graph, symbols, deadline, { cold: true, onFile: (list, known) => scorer.add(list, known, pace) });
    if (!cold) await scorer.add(symbols, shapes, pace);
    await warming;
    const pairs = await scorer.finish(pace);
    // Reasons only for the pairs returned: naming shared features costs a look at both neighbourhoods.
    const reasonOf = (p: TwinPair) => {
      const shared = p.graph !== null ? sharedFeatureNames(g, g.indexOf(p.a.id), g.indexOf(p.b.id), 4) : [];
      return `AST shape ${Math.round(p.ast * 100)}% alike (${p.tokens[0]} vs ${p.tokens[1]} tokens)${p.graph !== null ? `; graph signature ${Math.round(p.graph * 100)}%${shared.length ? `: both ${shared.join(', ')}` : ''}` : ''}`;
    };
    const rows = pairs.slice(0, args.top_k ?? 50).map((p) => ({
      a: { id: p.a.id, path: p.a.path, lines: [p.a.startLine, p.a.endLine] },
      b: { id: p.b.id, path: p.b.path, lines: [p.b.startLine, p.b.endLine] },
      similarity: Math.round(p.similarity * 1000) / 1000,
      ast: Math.round(p.ast * 1000) / 1000,
      graph: p.graph === null ? null : Math.round(p.graph * 1000) / 1000,
      reason: reasonOf(p),
    }));
    const { kept, report } = await packToTokenBudgetPaced(rows, args.token_budget ?? 4000, pace);
    return {
      pairs: kept,
      total: pairs.length,
      compared: { symbols: shapes.size, files: filesDone, files_total: filesTotal, parse_workers: workers, files_from_store: fromStore, files_parsed: parsed, ...(cold ? { files_sketched: cold.sketched, candidates: cold.candidates } : {}) },
      budget: report,
      time: deadline.report(`${filesTotal - filesDone} file(s) not parsed`),
    };
  },
});
