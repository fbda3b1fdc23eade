/** session_handshake: checks what the agent's host shows against what a safe binding needs. */
import { Type } from '@sinclair/typebox';
import { AgentId, defineVerb, type CatalogView, type PluginContext } from '../../../core/index.ts';
import { assessSession, ObservedSurface, splitSteps } from '../assessment.ts';

/** The session_handshake verb: `unverified` (never ok) when the host reports no tools. */
export function sessionHandshakeVerb(ctx: PluginContext, catalog: CatalogView) {
  return defineVerb({
    name: 'session_handshake',
    description: 'Bind a session: report the verbs your host shows; get a trust mode (degraded, wrong binding, needs_ingest, orientation_only, unverified, full_trust) and the next call (next_template: one to fill in first).',
    input: Type.Object({ agent_id: AgentId, ...ObservedSurface }),
    output: Type.Object({ schema: Type.String(), trust_mode: Type.String(), can_ingest: Type.Boolean(), can_retrieve: Type.Boolean() }),
    tiers: ['essential'],
    effect: 'session',
    stages: ['orient'],
    handler: async (args, call) => {
      const a = await assessSession(catalog, ctx.settings, args, call.agentId);
      const surface = a.tool_surface;
      const { runnable, templates } = splitSteps(a.steps);
      return {
        schema: 'm1nd-session-handshake-v1',
        agent_id: call.agentId,
        trust_mode: a.trust_mode,
        tool_surface: { ...surface, available_tools_sample: (args.available_tools ?? []).slice(0, 24) },
        binding: a.binding,
        graph: a.graph,
        can_ingest: catalog.get('ingest') !== undefined && !ctx.settings.readOnly,
        can_retrieve: a.graph.node_count > 0,
        can_recover: catalog.get('recovery_playbook') !== undefined,
        next_action: runnable[0] ?? null,
        ...(templates.length ? { next_template: templates[0] } : {}),
        doctor_recovery:
          a.trust_mode === 'full_trust'
            ? null
            : { verb: 'recovery_playbook', arguments: { ...args, agent_id: call.agentId, trust_mode: a.trust_mode }, fallback: 'doctor' },
      };
    },
  });
}
