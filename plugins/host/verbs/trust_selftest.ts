/** trust_selftest: the handshake plus the server's own invariant checks, as ok / warn / blocked. */
import { Type } from '@sinclair/typebox';
import { AgentId, defineVerb, type CatalogView, type PluginContext } from '../../../core/index.ts';
import { assessSession, healthErrors, nextSteps, ObservedCall, ObservedSurface } from '../assessment.ts';
import { surfaceInvariantFailures } from '../contract.ts';

/** The trust_selftest verb. */
export function trustSelftestVerb(ctx: PluginContext, catalog: CatalogView) {
  return defineVerb({
    name: 'trust_selftest',
    description: 'Self-test before trusting answers: surface invariants, plugin quarantine, host binding, graph state; ok/warn/blocked with next steps.',
    input: Type.Object({ agent_id: AgentId, ...ObservedSurface, ...ObservedCall }),
    output: Type.Object({
      next_steps: Type.Array(Type.Object({})),
      next_templates: Type.Optional(Type.Array(Type.Object({}))),
      status: Type.String(),
      verdict: Type.String(),
      trust_mode: Type.String(),
      checks: Type.Array(Type.Object({})),
      tool_surface: Type.Object({ status: Type.String(), tool_count: Type.Union([Type.Number(), Type.Null()]), advertised_tool_count: Type.Number(), required_tools: Type.Array(Type.Unknown()), required_tools_present: Type.Object({}), missing_required_tools: Type.Array(Type.Unknown()), degraded_host_tool_surface: Type.Boolean(), notes: Type.Array(Type.Unknown()) }),
      graph: Type.Object({ engine: Type.Boolean(), loaded: Type.Boolean(), node_count: Type.Number(), edge_count: Type.Number(), note: Type.Optional(Type.String()), parse_errors: Type.Optional(Type.Object({})) }),
    }),
    tiers: ['essential'],
    effect: 'read',
    stages: ['orient', 'diagnose'],
    handler: async (args, call) => {
      const a = await assessSession(catalog, ctx.settings, args, call.agentId);
      const checks = [
        { check: 'surface_invariants', failures: surfaceInvariantFailures(catalog) },
        { check: 'plugins_loaded', failures: [...catalog.quarantined().map((q) => `${q.plugin} quarantined (${q.check}): ${q.message}`), ...healthErrors(a.report).map((e) => `${e.plugin} cannot report its status: ${e.error}`)] },
        { check: 'host_tool_surface', failures: a.tool_surface.missing_required_tools.map((v) => `host hides required verb ${v}`) },
        { check: 'workspace_binding', failures: a.binding.wrong_workspace_binding ? [`scope ${a.binding.scope} is outside ${a.binding.workspace_root}`] : [] },
        { check: 'graph', failures: a.graph.error !== undefined ? [`graph status failed: ${a.graph.error}`] : a.graph.engine ? (a.graph.node_count === 0 ? ['graph is empty (needs ingest)'] : []) : ['no graph engine loaded'] },
      ].map((c) => ({ ...c, ok: c.failures.length === 0 }));
      let verdict = a.trust_mode === 'full_trust' ? 'full_trust' : a.trust_mode;
      if (verdict === 'full_trust' && args.observed_proof_state === 'blocked') verdict = 'stale_binding_suspected';
      const blocked = checks[0].failures.length > 0 || a.trust_mode === 'degraded_host_tool_surface' || a.trust_mode === 'wrong_workspace_binding';
      const status = blocked ? 'blocked' : checks.every((c) => c.ok) && verdict === 'full_trust' ? 'ok' : 'warn';
      return { status, verdict, trust_mode: a.trust_mode, checks, tool_surface: a.tool_surface, graph: a.graph, ...nextSteps(a.steps) };
    },
  });
}
