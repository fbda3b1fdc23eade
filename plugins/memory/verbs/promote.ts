/** promote: copies a verified, fresh project claim into the team scope with origin stamps. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import type { Claim } from '../claims.ts';
import { memoryCall } from '../call.ts';
import { nodeAnchorFiles } from '../settle.ts';
import { headCommit } from '../workspace-identity.ts';

export const promoteVerb = defineVerb({
  name: 'promote',
  description: 'Copy a fresh, evidence-backed project claim into the shared team (medulla) scope, stamped with its origin.',
  input: Type.Object({
    agent_id: AgentId,
    brain: StringEnum(['team', 'medulla'] as const, { description: 'Target: the team scope' }),
    claim: Type.String({ minLength: 1, description: 'Claim id' }),
    reason: Type.String({ minLength: 1 }),
  }),
  output: Type.Object({
    promoted: Type.String(),
    origin: Type.Optional(Type.Object({ claim_id: Type.String(), agent_id: Type.String(), workspace: Type.String(), commit: Type.Union([Type.String(), Type.Null()]), promoted_by: Type.String(), promoted_at: Type.String(), reason: Type.String() })),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['handoff'],
  guide:
    'Only a live `project` claim (not superseded) with evidence that is fresh right now can be promoted: stale claims must be re-verified (memorize reverify) first; claims without evidence are unverified and refused. ' +
    'The team copy carries origin stamps (claim id, author, workspace, commit, who promoted it, when, why); the original stays and lists its copy. Promoting the same claim twice returns the existing copy.',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const claim = await memory.claims.get(call.agentId, args.claim);
    if (claim.scope !== 'project') {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `claim "${claim.id}" is ${claim.scope}-scoped; only project claims are promoted`, {
        hint: claim.scope === 'agent' ? 'memorize it again with scope "project" once others may rely on it' : 'it is already shared with the team',
      });
    }
    if (claim.superseded_by) {
      throw new M1ndError(ErrorCodes.STATE_STALE, `claim "${claim.id}" was superseded by "${claim.superseded_by}"`, {
        hint: `promote the claim that replaced it: promote({"claim":"${claim.superseded_by}", …})`,
        data: { superseded_by: claim.superseded_by },
      });
    }
    await memory.settle(nodeAnchorFiles([claim]), call.signal);
    const f = memory.freshness([claim]).get(claim.id)!;
    if (f.state !== 'fresh') {
      throw new M1ndError(f.state === 'stale' ? ErrorCodes.STATE_STALE : ErrorCodes.MEMORY_UNVERIFIED, f.state === 'stale' ? `claim "${claim.id}" is stale: its evidence changed` : `claim "${claim.id}" cites no evidence, so nothing verifies it`, {
        hint: f.state === 'stale' ? `check it, then memorize({"reverify":["${claim.id}"]}) and promote again` : 'memorize it again with evidence (files, line ranges or nodes)',
        data: { changed: f.changed },
      });
    }
    const all = await memory.claims.all();
    const existing = (claim.promoted_to ?? []).map((id) => all.find((c) => c.id === id)).find(Boolean);
    if (existing) return { promoted: existing.id, already: true, origin: existing.origin };
    const now = Date.now();
    const copy: Claim = {
      ...claim,
      id: memory.claims.newId(),
      scope: 'team',
      created_at: now,
      origin: { claim_id: claim.id, agent_id: claim.author, workspace: graph.engine.root, commit: headCommit(graph.engine.root), promoted_by: call.agentId, promoted_at: new Date(now).toISOString(), reason: args.reason },
    };
    delete copy.promoted_to;
    const original = { ...claim, promoted_to: [...(claim.promoted_to ?? []), copy.id] };
    await memory.claims.save([copy, original]);
    const markdown = memory.mirror([copy, original]);
    return { promoted: copy.id, scope: 'team', origin: copy.origin, markdown };
  },
});
