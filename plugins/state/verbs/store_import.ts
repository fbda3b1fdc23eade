/** store_import: copies the workspace's shared state from the embedded store into the team store (import.ts). */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { importLocalState } from '../import.ts';
import type { StateService } from '../types.ts';

export function storeImportVerb(state: StateService) {
  return defineVerb({
    name: 'store_import',
    description: 'Copy this workspace’s claims, boot memory, missions, team trails and team feedback from the embedded store into the team store; idempotent.',
    input: Type.Object({
      agent_id: AgentId,
      dry_run: Type.Boolean({ default: false, description: 'Count what would be copied; write nothing' }),
    }),
    output: Type.Object({ from: Type.String(), to: Type.String(), dry_run: Type.Boolean(), counts: Type.Record(Type.String(), Type.Unknown()), imported: Type.Number() }),
    tiers: ['full'],
    effect: (args) => (args.dry_run ? 'read' : 'write'),
    maxEffect: 'write',
    guide:
      'Run once after pointing a workspace that used the embedded store at a team store (storage.url): rows the team store already has under the same key are kept, so re-running copies nothing twice. ' +
      'Private claims and trails, agent feedback and locks stay local. From a shell: m1nd call store_import.',
    handler: async (args, call) => {
      if (!state.team.shared || state.team === state.local) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'no team store is configured: the embedded store already holds the team state', {
          hint: 'set storage.url in m1nd.config.ts or M1ND_STORE_URL=postgres://… and call store_import again',
        });
      }
      const [from, to] = await Promise.all([state.local.status(), state.team.status()]);
      return importLocalState(state.local, state.team, { from: from.location, to: to.location, dryRun: args.dry_run, by: call.agentId });
    },
  });
}
