/** layers: architectural layers inferred from the dependency topology, utility units, and violations. */
import { AgentId, defineVerb, packToTokenBudgetPaced, StringEnum, Type, type CallContext } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { layerName, layeringOf, unitsOfLayer, type Layering } from '../layering.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';
import { typeOnlyImportsOf } from '../unit-graph.ts';

/** Parameters `layers` and `layer_inspect` share. */
export const LayerParams = {
  agent_id: AgentId,
  scope: ScopeParam,
  max_layers: Type.Optional(Type.Integer({ minimum: 2, maximum: 64, default: 8, description: 'Merge levels into at most this many layers' })),
  min_nodes_per_layer: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 2, description: 'A smaller layer folds into the one below' })),
  node_types: Type.Optional(Type.Array(StringEnum(['file', 'module']), { maxItems: 1, description: 'Unit: file (default) or module (directory)' })),
  exclude_tests: Type.Optional(Type.Boolean({ default: false, description: 'Leave test files out' })),
  time_budget_ms: timeBudgetParam(10_000),
};

/** The layering for the shared parameters. */
export async function layeringFor(call: CallContext, args: { scope?: string; max_layers?: number; min_nodes_per_layer?: number; node_types?: string[]; exclude_tests?: boolean; time_budget_ms?: number }): Promise<{ layering: Layering; deadline: Deadline }> {
  const { engine } = await structureCall(call);
  const deadline = new Deadline(args.time_budget_ms ?? 10_000, call.signal);
  const scope = scopeFilter(engine, args.scope);
  const granularity = args.node_types?.[0] === 'module' ? 'module' : 'file';
  const options = { granularity, inScope: scope.has, excludeTests: args.exclude_tests ?? false, typeOnlyImports: typeOnlyImportsOf(engine), maxLayers: args.max_layers ?? 8, minUnitsPerLayer: args.min_nodes_per_layer ?? 2 } as const;
  return { layering: await layeringOf(engine.graph, options, scope.prefix ?? '', deadline), deadline };
}

export const layersVerb = defineVerb({
  name: 'layers',
  description: 'Layers inferred from dependency topology (cycles, DAG depth), utility modules, and violations: cycles, upward and layer-skipping dependencies.',
  input: Type.Object({
    ...LayerParams,
    include_violations: Type.Optional(Type.Boolean({ default: true, description: 'List violations' })),
    violation_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 100, description: 'Most violations listed' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 3000, description: 'Result size bound' })),
  }),
  output: Type.Object({
    units: Type.Number(),
    unit: Type.String(),
    layer_count: Type.Number(),
    layers: Type.Array(Type.Object({})),
    utility: Type.Array(Type.Object({})),
    cycles: Type.Number(),
    violation_counts: Type.Object({ cycle: Type.Number(), upward: Type.Number(), skip: Type.Number() }),
    violations: Type.Array(Type.Object({})),
    type_only_dependencies: Type.Optional(Type.Number()),
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['orient'],
  next: 'layer_inspect',
  guide:
    'Layer 0 depends on nothing in scope; a unit sits one layer above the highest unit it depends on. Inside a cycle, the lightest arcs that close it are the `upward` violations (fix those to break it). `skip` violations (low severity) use code two or more layers down past a unit that wraps it (`bypasses`: a unit between that the caller also uses, whose code uses the target, and most of the target\'s users sit just above it). Utility units (many dependents across directories, at most one dependency) are listed apart and never count as violations.',
  handler: async (args, call) => {
    const { layering, deadline } = await layeringFor(call, args);
    const ug = layering.graph;
    const layers = [];
    for (let l = layering.layerCount - 1; l >= 0; l--) {
      const units = unitsOfLayer(layering, l);
      layers.push({ level: l, name: layerName(layering, l), units: units.length, top: units.slice(0, 8).map((u) => ug.units[u]) });
    }
    const violations = args.include_violations === false ? [] : layering.violations.slice(0, args.violation_limit ?? 100);
    const counts = { cycle: 0, upward: 0, skip: 0 };
    for (const v of layering.violations) counts[v.kind]++;
    const { kept, report } = await packToTokenBudgetPaced(violations, Math.max(200, (args.token_budget ?? 3000) - 600), () => deadline.pace());
    return {
      units: ug.units.length,
      unit: ug.granularity,
      layer_count: layering.layerCount,
      layers,
      utility: layering.utility.slice(0, 15).map((u) => ({ unit: ug.units[u], dependents: layering.fanIn[u] })),
      cycles: layering.cycles.length,
      violation_counts: counts,
      violations: kept,
      // Arcs resting on type-only imports alone (`import type`, `if TYPE_CHECKING:`): set aside.
      ...(ug.typeOnlyArcs > 0 ? { type_only_dependencies: ug.typeOnlyArcs } : {}),
      budget: report,
      time: deadline.report('layers were computed; only the listing was cut'),
    };
  },
});
