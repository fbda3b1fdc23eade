/** health: server status, the live surface counts and the tool-surface contract. */
import { Type } from '@sinclair/typebox';
import { AgentId, CORE_VERSION, defineVerb, StringEnum, youngGeneration, type CatalogView, type PluginContext } from '../../../core/index.ts';
import { serverStatus, toolSurfaceContract } from '../contract.ts';
import { graphState } from '../assessment.ts';

/** The health verb; `reloadError` reports a failed hot reload while the last good generation serves. */
export function healthVerb(ctx: PluginContext, catalog: CatalogView) {
  return defineVerb({
    name: 'health',
    description: 'Server status: uptime, tier, gates, verb counts, quarantined plugins, graph state, tool-surface contract.',
    input: Type.Object({ agent_id: AgentId }),
    // Terse (no descriptions): output schemas of essential verbs count against the tier's tools/list budget.
    output: Type.Object({ status: StringEnum(['ok', 'degraded']), counts: Type.Object({ registry: Type.Integer(), advertised: Type.Integer() }) }),
    tiers: ['essential'],
    effect: 'read',
    stages: ['orient', 'diagnose', 'operate'],
    next: 'session_handshake',
    handler: async () => {
      const surface = catalog.surface();
      const choice = catalog.tierChoice();
      const report = await catalog.statusReport();
      const quarantined = catalog.quarantined();
      const agents = ctx.session.listAgents();
      const contract = toolSurfaceContract(catalog);
      const hostStatus = catalog.hostStatus();
      const { status, reasons } = serverStatus(catalog, report);
      return {
        status,
        ...(reasons.length > 0 ? { status_reasons: reasons } : {}),
        server: { name: 'm1nd', version: CORE_VERSION, pid: process.pid, node: process.version },
        uptime_seconds: Math.round((Date.now() - ctx.session.startedAt) / 1000),
        workspace_root: ctx.settings.workspaceRoot,
        tool_tier: { served: surface.tier, requested: choice.requested ?? null, unknown_requested: choice.unknown, warnings: catalog.tierWarnings() },
        read_only: ctx.settings.readOnly,
        proof_gate: ctx.settings.proofGate,
        result_token_limit: ctx.settings.resultTokenLimit,
        counts: { registry: surface.counts.registry, advertised: surface.counts.advertised, unadvertised: surface.counts.unadvertised, by_family: surface.counts.byFamily },
        plugins: catalog.plugins().map((p) => ({ name: p.name, version: p.version, family: p.family })),
        quarantined,
        generation: hostStatus,
        sessions: {
          agents: agents.length,
          active_last_10m: agents.filter((a) => Date.now() - a.lastSeen < 600_000).length,
          calls: agents.reduce((n, a) => n + a.queryCount, 0),
        },
        memory_rss_bytes: process.memoryUsage().rss,
        // The young generation's policy and size (a server holds it small: core/cli-heap.ts).
        young_generation: youngGeneration(),
        graph: graphState(report),
        ...Object.fromEntries(Object.entries(report).filter(([k]) => k !== 'graph')),
        tool_surface_contract: contract,
      };
    },
  });
}
