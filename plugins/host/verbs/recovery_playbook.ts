/** recovery_playbook: ordered recovery steps for a trust mode or an observed failure. */
import { Type } from '@sinclair/typebox';
import { AgentId, defineVerb, type CatalogView, type PluginContext } from '../../../core/index.ts';
import { assessSession, ObservedCall, ObservedSurface, splitSteps, stepsFor, type TrustMode } from '../assessment.ts';

const MODES = ['degraded_host_tool_surface', 'wrong_workspace_binding', 'needs_ingest', 'orientation_only', 'unverified_host_surface', 'full_trust'];

/** The recovery_playbook verb. */
export function recoveryPlaybookVerb(ctx: PluginContext, catalog: CatalogView) {
  return defineVerb({
    name: 'recovery_playbook',
    description: 'Ordered recovery steps (verb + arguments + why; templates apart: fill them first) for a trust mode or what you observed; assesses the session when no mode is given.',
    input: Type.Object({
      agent_id: AgentId,
      trust_mode: Type.Optional(Type.String({ description: 'from session_handshake' })),
      ...ObservedCall,
      ...ObservedSurface,
    }),
    output: Type.Object({
      done_when: Type.String(),
      templates: Type.Optional(Type.Array(Type.Object({}))),
      steps: Type.Array(Type.Object({})),
      note: Type.Optional(Type.String()),
      trust_mode: Type.String(),
      assessed_trust_mode: Type.String(),
    }),
    tiers: ['essential'],
    effect: 'read',
    stages: ['diagnose'],
    handler: async (args, call) => {
      const assessed = await assessSession(catalog, ctx.settings, args, call.agentId);
      let mode = assessed.trust_mode;
      let note: string | undefined;
      if (args.trust_mode !== undefined) {
        if (MODES.includes(args.trust_mode)) mode = args.trust_mode as TrustMode;
        else note = `unknown trust_mode "${args.trust_mode}"; used the assessed mode "${assessed.trust_mode}" (known: ${MODES.join(', ')})`;
      }
      const { runnable, templates } = splitSteps(mode === assessed.trust_mode ? assessed.steps : stepsFor(mode, catalog, ctx.settings, args, call.agentId));
      return {
        trust_mode: mode,
        assessed_trust_mode: assessed.trust_mode,
        ...(note ? { note } : {}),
        steps: runnable.map((s, i) => ({ order: i + 1, ...s })),
        ...(templates.length ? { templates } : {}),
        done_when: mode === 'full_trust' ? 'nothing to recover' : 'session_handshake answers trust_mode "full_trust"',
      };
    },
  });
}
