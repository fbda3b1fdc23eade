/** xray_orient: the module dependency matrix checked against the team's layer manifest, with violations, cycles and erosion candidates. */
import { AgentId, defineVerb, packToTokenBudgetPaced, Type } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';
import { typeOnlyImportsOf } from '../unit-graph.ts';
import { conformance, erosionCandidates } from '../xray/conformance.ts';
import { loadManifest, ManifestSchema, type ManifestInput } from '../xray/manifest.ts';

/** Parameters every xray verb that reads the manifest takes. */
export const ManifestParams = {
  manifest: Type.Optional(ManifestSchema),
  manifest_path: Type.Optional(Type.String({ maxLength: 1024, workspacePath: true, description: 'Manifest JSON file (default m1nd.layers.json)' })),
};

export function xrayOrientVerb(configured: ManifestInput | undefined) {
  return defineVerb({
    name: 'xray_orient',
    description: 'Layer dependency matrix checked against the layer manifest (m1nd.layers.json): upward/forbidden/skipping arcs, cycles, erosion candidates.',
    input: Type.Object({
      agent_id: AgentId,
      scope: ScopeParam,
      ...ManifestParams,
      top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 20, description: 'Most violations and candidates listed' })),
      token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 3000, description: 'Result size bound' })),
      time_budget_ms: timeBudgetParam(10_000),
    }),
    output: Type.Object({
      manifest: Type.String(),
      layers: Type.Array(Type.Object({ name: Type.String(), rank: Type.Number(), paths: Type.Array(Type.Unknown()), files: Type.Number() })),
      matrix: Type.Object({ rows: Type.Array(Type.String()), cols: Type.Array(Type.String()), weight: Type.Array(Type.Unknown()) }),
      conforms: Type.Boolean(),
      violation_counts: Type.Record(Type.String(), Type.Number()),
      violations: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), weight: Type.Number(), kind: Type.String(), why: Type.String(), via: Type.Array(Type.Unknown()) })),
      cycles: Type.Array(Type.Object({ members: Type.Array(Type.Unknown()), layers: Type.Array(Type.Unknown()) })),
      erosion_candidates: Type.Array(Type.Object({ file: Type.String(), layer: Type.Union([Type.String(), Type.Null()]), weight: Type.Number(), kinds: Type.Array(Type.Unknown()), arcs: Type.Array(Type.Unknown()) })),
      unmapped: Type.Object({ files: Type.Number(), sample: Type.Array(Type.String()) }),
      missing_required: Type.Array(Type.String()),
      budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
      time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['orient'],
    next: 'xray_gate',
    guide:
      'Layers are listed top → bottom; a layer may depend on layers below it. Arcs are file dependencies (imports, calls, references, inheritance) resolved with confidence ≥ 0.5, weighed by link count. Violations: forbidden (a forbid rule), upward (a lower layer reaches up), skip (only when allow_skip is false). Erosion candidates are the files whose own dependencies break the manifest.',
    handler: async (args, call) => {
      const { engine } = await structureCall(call);
      const manifest = loadManifest(engine, args, configured);
      const deadline = new Deadline(args.time_budget_ms ?? 10_000, call.signal);
      const scope = scopeFilter(engine, args.scope);
      const c = await conformance(engine.graph, manifest, scope.has, scope.prefix ?? '', deadline, typeOnlyImportsOf(engine));
      const names = [...manifest.layers.map((l) => l.name), '(unmapped)'];
      const topK = args.top_k ?? 20;
      const files = names.map(() => 0);
      for (let u = 0; u < c.layer.length; u++) files[c.layer[u] < 0 ? names.length - 1 : c.layer[u]]++;
      const counts = { forbidden: 0, upward: 0, skip: 0 } as Record<string, number>;
      for (const v of c.violations) counts[v.kind]++;
      const candidates = erosionCandidates(c, manifest);
      const { kept, report } = await packToTokenBudgetPaced(c.violations.slice(0, topK), args.token_budget ?? 3000, () => deadline.pace());
      return {
        manifest: manifest.source,
        layers: manifest.layers.map((l, i) => ({ name: l.name, rank: i + 1, paths: l.globs, files: files[i] })),
        matrix: { rows: names, cols: names, weight: c.matrix },
        conforms: c.violations.length === 0 && c.missing.length === 0,
        violation_counts: counts,
        violations: kept,
        cycles: c.cycles.slice(0, topK),
        erosion_candidates: candidates.slice(0, topK),
        unmapped: { files: c.unmapped.length, sample: c.unmapped.slice(0, 10) },
        missing_required: c.missing,
        budget: report,
        time: deadline.report('the dependency matrix is partial'),
      };
    },
  });
}
