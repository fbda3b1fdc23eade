/** layer_inspect: one inferred layer — its units, its arcs to other layers, its violations and health. */
import { defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { layerName, unitsOfLayer } from '../layering.ts';
import { LayerParams, layeringFor } from './layers.ts';

export const layerInspectVerb = defineVerb({
  name: 'layer_inspect',
  description: 'One inferred layer (see layers): its units, arcs to other layers, violations and health.',
  input: Type.Object({
    level: Type.Integer({ minimum: 0, maximum: 64, description: 'Layer number from layers (0 = bottom)' }),
    ...LayerParams,
    include_edges: Type.Optional(Type.Boolean({ default: true, description: 'List cross-layer arcs' })),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Most units and arcs listed' })),
  }),
  output: Type.Object({
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
    cross_layer_arcs: Type.Optional(Type.Array(Type.Object({}))),
    level: Type.Number(),
    name: Type.String(),
    units: Type.Array(Type.Object({})),
    unit_count: Type.Number(),
    health: Type.Object({ score: Type.Number(), cohesion: Type.Number(), arcs_inside: Type.Number(), arcs_down: Type.Number(), arcs_upward: Type.Number(), arcs_to_utility: Type.Number(), arcs_in_cycles: Type.Number(), arcs_from_above: Type.Number() }),
    violations: Type.Array(Type.Object({})),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['orient'],
  next: 'impact',
  guide: 'Health = 1 − (arcs upward or inside a cycle, each counted once) ÷ arcs leaving the layer\'s units; cohesion = arcs inside the layer ÷ all its arcs. Pass the same scope/max_layers/node_types as the `layers` call so the numbering matches.',
  handler: async (args, call) => {
    const { layering, deadline } = await layeringFor(call, args);
    const ug = layering.graph;
    if (args.level >= layering.layerCount) {
      throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `there is no layer ${args.level}: this scope has ${layering.layerCount} (0..${layering.layerCount - 1})`, {
        hint: 'call `layers` with the same scope to see the layers, then pass one of their levels',
      });
    }
    const l = args.level;
    const units = unitsOfLayer(layering, l);
    // The cycle (strongly connected component) of each unit in one: an arc is in a cycle when both ends are in the same one.
    const cycleOf = new Map<number, number>();
    layering.cycles.forEach((members, k) => members.forEach((u) => cycleOf.set(u, k)));
    const topK = args.top_k ?? 50;
    let intra = 0;
    let down = 0;
    let up = 0;
    let toUtility = 0;
    let cyclic = 0;
    // Arcs that are upward or inside a cycle, each counted once (an upward arc is one that closes a cycle).
    let bad = 0;
    let fromAbove = 0;
    const arcs: { from: string; to: string; to_layer: number; direction: string; weight: number }[] = [];
    for (const a of units) {
      for (const [b, weight] of ug.out[a]) {
        const lb = layering.layer[b];
        const isUp = layering.upward.has(`${a} ${b}`);
        const inSameCycle = cycleOf.has(a) && cycleOf.get(a) === cycleOf.get(b);
        if (inSameCycle) cyclic++;
        if (inSameCycle || isUp) bad++;
        if (lb < 0) toUtility++;
        else if (isUp) up++;
        else if (lb === l) intra++;
        else down++;
        if (lb !== l && args.include_edges !== false) arcs.push({ from: ug.units[a], to: ug.units[b], to_layer: lb, direction: lb < 0 ? 'utility' : isUp ? 'upward' : 'down', weight: Math.round(weight * 100) / 100 });
      }
    }
    for (let a = 0; a < ug.units.length; a++) if (layering.layer[a] > l) for (const b of ug.out[a].keys()) if (layering.layer[b] === l) fromAbove++;
    const leaving = intra + down + up + toUtility;
    const names = new Set(units.map((u) => ug.units[u]));
    const violations = layering.violations.filter((v) => names.has(v.from) || (v.to !== undefined && names.has(v.to)) || v.members?.some((m) => names.has(m)));
    arcs.sort((x, y) => (x.direction === 'upward' ? -1 : 0) - (y.direction === 'upward' ? -1 : 0) || y.weight - x.weight);
    return {
      level: l,
      name: layerName(layering, l),
      units: units.slice(0, topK).map((u) => ({ unit: ug.units[u], dependents: layering.fanIn[u], depends_on: ug.out[u].size, in_cycle: cycleOf.has(u) })),
      unit_count: units.length,
      health: {
        score: leaving === 0 ? 1 : Math.round((1 - bad / leaving) * 100) / 100,
        cohesion: leaving === 0 ? 0 : Math.round((intra / leaving) * 100) / 100,
        arcs_inside: intra,
        arcs_down: down,
        arcs_upward: up,
        arcs_to_utility: toUtility,
        arcs_in_cycles: cyclic,
        arcs_from_above: fromAbove,
      },
      violations: violations.slice(0, topK),
      ...(args.include_edges !== false ? { cross_layer_arcs: arcs.slice(0, topK) } : {}),
      time: deadline.report(),
    };
  },
});
