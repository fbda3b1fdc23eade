/** focus: for a goal and a token budget, the minimal set of code worth loading, and what was left out. */
import { AgentId, countTokens, defineVerb, Type } from '../../../core/index.ts';
import type { GraphNode } from '../../graph/api.ts';
import { containerOf, yieldToLoop } from '../../graph/api.ts';
import { nodeRef, NodeTypes } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, round3 } from './graph-call.ts';
import { activationReady, activateQuery, DIMENSIONS, type ActivatedNode } from './query-activation.ts';
import { explainActivation } from './activation-results.ts';

/** Above this many characters a span's tokens are estimated from a sample instead of counted. */
const EXACT_CHARS = 60_000;

type Reason = 'below_min_score' | 'covered_by_parent' | 'covered_by_parts' | 'too_large' | 'over_budget' | 'directory' | 'unreadable';

export const focusVerb = defineVerb({
  name: 'focus',
  description: 'For a goal and a token budget: the minimal set of code spans worth loading, what was left out and why, and whether it suffices.',
  input: Type.Object({
    agent_id: AgentId,
    goal: Type.String({ minLength: 1 }),
    token_budget: Type.Integer({ minimum: 1, default: 2000, description: 'BPE tokens of source to load' }),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 60, description: 'Candidates considered' }),
    scope: Type.Optional(Type.String({ description: 'Only under this path' })),
    node_types: NodeTypes,
    min_score: Type.Number({ minimum: 0, maximum: 1, default: 0.1, description: 'Relative to the best candidate' }),
  }),
  output: Type.Object({
    goal: Type.String(),
    selected: Type.Array(Type.Object({})),
    used_tokens: Type.Number(),
    token_budget: Type.Number(),
    sufficiency: Type.String(),
    coverage: Type.Number(),
    left_out: Type.Array(Type.Object({})),
    left_out_by_reason: Type.Object({}),
    load: Type.Array(Type.Object({})),
    elapsed_ms: Type.Number(),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['plan', 'find', 'ground'],
  next: 'batch_view',
  guide: [
    'Candidates are the goal\'s activation (all dimensions, your warmup boosts and learned weights included), filtered by scope, node_types and min_score (a fraction of the best score). Each costs the BPE tokens of its source lines.',
    'They are taken in rank order: a node whose container is already selected is `covered_by_parent`; a container whose parts are already selected is `covered_by_parts`; a file or class costing over 40% of the budget while some of its parts are candidates is `too_large` (the parts are loaded instead); one that does not fit what is left is `over_budget` (smaller ones after it may still fit).',
    '`sufficiency` is `sufficient` when the selection holds the best candidate and at least 60% of the candidates\' score mass, `partial` from 30%, else `insufficient`. `load` lists the line windows to read (offset/limit for view or batch_view).',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    await activationReady(engine);
    const outcome = await activateQuery(graph, engine, {
      query: args.goal,
      agentId: call.agentId,
      dimensions: DIMENSIONS,
      topK: args.top_k,
      xlr: true,
      ghostEdges: true,
      scope: args.scope,
      kinds: args.node_types.length ? args.node_types : undefined,
    });
    // The spans' files are read and their tokens counted in a stretch of their own (the dispatcher loaded the tokenizer before the handler).
    await yieldToLoop();
    const top = outcome.results[0]?.score ?? 0;
    const texts = new Map<string, string[] | null>();
    const linesOf = (path: string): string[] | null => {
      if (!texts.has(path)) {
        try {
          texts.set(path, engine.readFile(path).content.split('\n'));
        } catch {
          texts.set(path, null);
        }
      }
      return texts.get(path)!;
    };
    const costOf = (n: GraphNode): { tokens: number; estimated: boolean } | null => {
      const lines = linesOf(n.path);
      if (!lines) return null;
      const text = lines.slice(Math.max(0, n.startLine - 1), n.kind === 'file' ? lines.length : n.endLine).join('\n');
      if (text.length <= EXACT_CHARS) return { tokens: countTokens(text), estimated: false };
      const sample = text.slice(0, 20_000);
      return { tokens: Math.ceil((countTokens(sample) / sample.length) * text.length), estimated: true };
    };
    const candidates = outcome.results.filter((r) => top > 0 && r.score / top >= args.min_score);
    const below = outcome.results.length - candidates.length;
    const candidateSet = new Set(candidates.map((r) => r.index));
    const ancestors = (i: number): number[] => {
      const out: number[] = [];
      for (let p = containerOf(g, i), guard = 0; p >= 0 && guard < 32; p = containerOf(g, p), guard++) out.push(p);
      return out;
    };
    const selected: { r: ActivatedNode; tokens: number; estimated: boolean }[] = [];
    const selectedSet = new Set<number>();
    const leftOut: { id: string; reason: Reason; tokens?: number; by?: string }[] = [];
    let used = 0;
    for (const r of candidates) {
      const n = r.node;
      if (n.kind === 'module') {
        leftOut.push({ id: n.id, reason: 'directory' });
        continue;
      }
      const parent = ancestors(r.index).find((a) => selectedSet.has(a));
      if (parent !== undefined) {
        leftOut.push({ id: n.id, reason: 'covered_by_parent', by: g.node(parent)!.id });
        continue;
      }
      const part = [...selectedSet].find((s) => ancestors(s).includes(r.index));
      if (part !== undefined) {
        leftOut.push({ id: n.id, reason: 'covered_by_parts', by: g.node(part)!.id });
        continue;
      }
      const cost = costOf(n);
      if (!cost) {
        leftOut.push({ id: n.id, reason: 'unreadable' });
        continue;
      }
      const hasPartsLater = candidates.some((c) => c.index !== r.index && candidateSet.has(c.index) && ancestors(c.index).includes(r.index));
      if ((n.kind === 'file' || n.kind === 'class') && hasPartsLater && cost.tokens > 0.4 * args.token_budget) {
        leftOut.push({ id: n.id, reason: 'too_large', tokens: cost.tokens });
        continue;
      }
      if (used + cost.tokens > args.token_budget) {
        leftOut.push({ id: n.id, reason: 'over_budget', tokens: cost.tokens });
        continue;
      }
      used += cost.tokens;
      selected.push({ r, ...cost });
      selectedSet.add(r.index);
    }
    const mass = candidates.reduce((s, r) => s + r.score, 0);
    const got = selected.reduce((s, x) => s + x.r.score, 0);
    const coverage = mass > 0 ? got / mass : 0;
    const hasBest = candidates.length > 0 && selectedSet.has(candidates[0].index);
    const sufficiency = candidates.length === 0 ? 'empty' : hasBest && coverage >= 0.6 ? 'sufficient' : coverage >= 0.3 ? 'partial' : 'insufficient';
    const load = selected
      .map(({ r }) => ({ file_path: r.node.path, offset: r.node.kind === 'file' ? 0 : r.node.startLine - 1, limit: r.node.kind === 'file' ? r.node.endLine : r.node.endLine - r.node.startLine + 1 }))
      .sort((a, b) => (a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : a.offset - b.offset));
    const reasons: Record<string, number> = {};
    for (const l of leftOut) reasons[l.reason] = (reasons[l.reason] ?? 0) + 1;
    if (below) reasons.below_min_score = below;
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: selected.map((s) => s.r.node), query: { subject: args.goal, results: selected.length, elapsedMs } });
    return {
      goal: args.goal,
      selected: selected.map(({ r, tokens, estimated }) => ({
        ...nodeRef(r.node),
        score: round3(r.score / top),
        tokens,
        ...(estimated ? { estimated: true } : {}),
        why: explainActivation(g, outcome, r),
      })),
      used_tokens: used,
      token_budget: args.token_budget,
      sufficiency,
      coverage: round3(coverage),
      left_out: leftOut.slice(0, 30),
      left_out_by_reason: reasons,
      load,
      elapsed_ms: round3(elapsedMs),
    };
  },
});
