/** refactor_plan: Louvain communities of a region, their bridge edges as the interface, the counterfactual risk of extracting each, ranked. */
import { AgentId, defineVerb, packToTokenBudget, Type } from '../../../core/index.ts';
import { fileIndexOf, simulateRemovalPaced } from '../../graph/api.ts';
import { structureCall } from '../call.ts';
import { splitRegion } from '../communities.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';

export const refactorPlanVerb = defineVerb({
  name: 'refactor_plan',
  description: 'Extraction plans for a region: Louvain communities of its files (or of one file\'s symbols), bridge edges as the interface, the risk of extracting each, ranked.',
  input: Type.Object({
    agent_id: AgentId,
    scope: ScopeParam,
    max_communities: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: 'Most plans returned' })),
    min_community_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 3, description: 'Smaller communities are no plan' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 4000, description: 'Result size bound' })),
    time_budget_ms: timeBudgetParam(15_000),
  }),
  output: Type.Object({
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
    note: Type.Optional(Type.String()),
    level: Type.String(),
    units: Type.Number(),
    communities: Type.Number(),
    modularity: Type.Number(),
    plans: Type.Array(Type.Object({})),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['plan'],
  next: 'impact',
  guide:
    'Units are the region\'s files; when the scope is a single file, its symbols. Louvain (seeded, so stable) maximises modularity over dependency links weighted by resolution confidence. Per plan: cohesion = links inside ÷ links touching it; `interface` = its members the rest of the region uses (what the extracted module must export); `depends_on` = what it would import back; `breaks` = counterfactual removal of the community: dependents outside it that would need a new import, and code left unreachable. score = cohesion × (1 − risk) × log2(1 + size).',
  handler: async (args, call) => {
    const { engine } = await structureCall(call);
    const g = engine.graph;
    const deadline = new Deadline(args.time_budget_ms ?? 15_000, call.signal);
    const scope = scopeFilter(engine, args.scope);
    const split = await splitRegion(g, scope.has, deadline);
    const name = (i: number) => (split.level === 'file' ? g.node(i)!.path : g.node(i)!.id);
    const fileOf = fileIndexOf(g);
    const minSize = args.min_community_size ?? 3;
    const plans = [];
    const candidates = split.communities.length > 1 ? split.communities.filter((c) => c.units.length >= minSize) : [];
    for (const c of candidates) {
      if (deadline.spent()) break;
      const sim = await simulateRemovalPaced(g, c.units, () => deadline.pace());
      const brokenFiles = new Set(sim.broken.map((b) => fileOf[b.node]).filter((f) => f >= 0));
      const risk = Math.min(1, sim.broken.length / (sim.broken.length + 2 * c.units.length + 5));
      const cohesion = c.internal + c.cut === 0 ? 0 : c.internal / (c.internal + c.cut);
      const score = cohesion * (1 - risk) * Math.log2(1 + c.units.length);
      const top = (m: Map<number, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([u, w]) => ({ unit: name(u), uses: Math.round(w * 100) / 100 }));
      plans.push({
        size: c.units.length,
        units: c.units.map(name).sort().slice(0, 15),
        cohesion: Math.round(cohesion * 100) / 100,
        interface: top(c.usedFromOutside),
        depends_on: top(c.usesOutside),
        bridges: Math.round(c.cut * 100) / 100,
        breaks: { dependents: sim.broken.length, files: brokenFiles.size, unreachable: sim.orphaned.length },
        risk: Math.round(risk * 100) / 100,
        score: Math.round(score * 100) / 100,
      });
    }
    plans.sort((a, b) => b.score - a.score || b.size - a.size);
    const ranked = plans.slice(0, args.max_communities ?? 10).map((p, i) => ({ rank: i + 1, ...p }));
    const { kept, report } = packToTokenBudget(ranked, Math.max(200, (args.token_budget ?? 4000) - 300));
    return {
      level: split.level,
      units: split.unitCount,
      communities: split.communities.length,
      modularity: Math.round(split.modularity * 1000) / 1000,
      plans: kept,
      ...(split.communities.length <= 1 ? { note: 'the region is one community: nothing to extract at this level; narrow scope to one file to split its symbols' } : {}),
      budget: report,
      time: deadline.report(`${candidates.length - plans.length} communit(ies) not assessed`),
    };
  },
});
