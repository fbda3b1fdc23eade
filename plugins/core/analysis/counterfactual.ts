/** counterfactual: simulate removing nodes — what breaks, what becomes unreachable, what cascades. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { confidenceFilter, edgeConfidence } from '../../graph/api.ts';
import { pathTokens } from '../../graph/api.ts';
import { KIND_CODE, kindCodes } from '../../graph/api.ts';
import { pathTo, propagate } from '../../graph/api.ts';
import { simulateRemovalPaced, slicePace } from '../../graph/api.ts';
import { IMPACT_PROFILE } from '../../graph/api.ts';
import { RELATIONS } from '../../graph/api.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArgs, round3 } from './graph-call.ts';
import { IMPACT_DECAY, IMPACT_THRESHOLD } from './impact.ts';

export const counterfactualVerb = defineVerb({
  name: 'counterfactual',
  description: 'Simulate removing nodes: dependents left broken, code left unreachable, and the cascade.',
  input: Type.Object({
    agent_id: AgentId,
    node_ids: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 50 }),
    include_cascade: Type.Boolean({ default: true, description: 'Transitive effects, not only direct' }),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 30 }),
    min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'Skip edges resolved below this confidence' }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    synergy: Type.Optional(Type.Object({ together: Type.Number(), separately: Type.Number(), ratio: Type.Union([Type.Number(), Type.Null()]) })),
    reachability: Type.Object({ before: Type.Number(), after: Type.Number(), lost: Type.Number(), lost_pct: Type.Number() }),
    cascade_count: Type.Optional(Type.Number()),
    cascade: Type.Optional(Type.Array(Type.Unknown())),
    broken: Type.Array(Type.Object({})),
    orphaned_count: Type.Number(),
    orphaned: Type.Array(Type.Object({})),
    min_confidence: Type.Optional(Type.Number()),
    removed: Type.Array(Type.Object({})),
    removed_with_contents: Type.Number(),
    broken_count: Type.Number(),
    note: Type.Optional(Type.String()),
  }),
  effect: 'read',
  stages: ['plan', 'review'],
  next: 'impact',
  guide: [
    'Nothing is removed: the graph is masked. A removed node takes everything it contains (a file its symbols, a class its methods).',
    '- `broken`: nodes outside the removal with an edge into it (callers, importers, subclasses, tests, docs) — they would dangle; each with the `confidence` of its strongest such edge (`min_confidence` drops weaker ones, here and in the cascade).',
    '- `orphaned`: code that is reachable from the entry points now (things nobody uses: scripts, public API, tests) over use edges (imports, calls, references, inheritance, class members) and would no longer be: the dead code the removal leaves behind. Without include_cascade only the first ring is listed (nodes whose every user was removed).',
    '- `cascade`: the reverse blast radius of the removed set (as `impact` reverse), with chains.',
    'With 2–5 nodes, `synergy` compares what they orphan together with the sum of what each orphans alone (> 1: they back each other up).',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { engine, g } = await openGraph(call);
    const given = await resolveNodeArgs(engine, args.node_ids, 'node_ids[]');
    const pace = slicePace(8);
    const sim = await simulateRemovalPaced(g, given.map((r) => r.index), pace);
    const pr = engine.pagerank().scores;
    const kinds = kindCodes(g);
    const notModule = (i: number) => kinds[i] !== KIND_CODE.module;
    const byRank = (list: number[]) => list.filter(notModule).sort((a, b) => (pr[b] ?? 0) - (pr[a] ?? 0) || a - b);
    const brokenAll = sim.broken.filter(({ edge }) => edgeConfidence(g, edge) >= args.min_confidence);
    const broken = brokenAll.slice(0, args.top_k).map(({ node, edge }) => ({
      ...nodeRef(g.node(node)!),
      edge: `${g.node(node)!.id} -${RELATIONS[g.edgeRelation[edge]]}-> ${g.node(g.edgeTarget[edge])!.id}`,
      confidence: edgeConfidence(g, edge),
    }));
    const orphanList = byRank(args.include_cascade ? sim.orphaned : sim.directOrphans);
    const removedSet = new Set(sim.removed);
    let cascade: unknown[] | undefined;
    let cascadeCount = 0;
    if (args.include_cascade) {
      // Everything removed is a source of breakage (a file's callers reach it through its symbols).
      const p = propagate(
        g,
        sim.removed.map((index) => ({ index, signal: 1 })),
        {
          direction: 'in',
          relations: IMPACT_PROFILE,
          decay: IMPACT_DECAY,
          threshold: IMPACT_THRESHOLD,
          maxDepth: 5,
          maxVisits: 20_000,
          edgeFactor: confidenceFilter(g, args.min_confidence),
        },
      );
      const rows: unknown[] = [];
      for (let k = 0; k < p.count; k++) {
        const v = p.order[k];
        if (removedSet.has(v) || !notModule(v)) continue;
        cascadeCount++;
        if (rows.length < args.top_k) rows.push({ ...nodeRef(g.node(v)!), depth: p.depth[k], signal: round3(p.signal[k]), chain: pathTokens(g, pathTo(p, v)) });
      }
      cascade = rows;
    }
    let synergy: { together: number; separately: number; ratio: number | null } | undefined;
    if (args.include_cascade && given.length >= 2 && given.length <= 5) {
      let alone = 0;
      for (const r of given) alone += (await simulateRemovalPaced(g, [r.index], pace)).orphaned.filter(notModule).length;
      const together = sim.orphaned.filter(notModule).length;
      synergy = { together, separately: alone, ratio: alone > 0 ? round3(together / alone) : null };
    }
    const lost = sim.reachableBefore - sim.reachableAfter;
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: given.map((r) => r.node), query: { subject: given.map((r) => r.node.id).join(', '), results: orphanList.length, elapsedMs } });
    return {
      removed: given.map((r) => nodeRef(r.node)),
      removed_with_contents: sim.removed.filter(notModule).length,
      broken_count: brokenAll.length,
      ...(args.min_confidence > 0 ? { min_confidence: args.min_confidence } : {}),
      broken,
      orphaned_count: orphanList.length,
      orphaned: orphanList.slice(0, args.top_k).map((i) => nodeRef(g.node(i)!)),
      ...(args.include_cascade ? { cascade_count: cascadeCount, cascade } : { note: 'direct effects only: orphaned lists nodes whose every user was removed' }),
      reachability: { before: sim.reachableBefore, after: sim.reachableAfter, lost, lost_pct: round3((100 * lost) / Math.max(1, sim.reachableBefore)) },
      ...(synergy ? { synergy } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});
