/** orient: a starting packet for a task — activated nodes, relevant claims (fresh first), coverage, one next move. */
import { defineVerb, tokenizerReady, Type } from '../../../core/index.ts';
import { memoryCall } from '../call.ts';
import { coverageOf } from '../coverage.ts';
import { orientOn, type ActivatedNode, type RankedClaim } from '../orientation.ts';
import { DEFAULT_PACKET_TOKENS, packSections, TaskPacketParams } from '../packet.ts';
import { scopesOfTier } from '../scopes.ts';

/** The one next move an orientation packet recommends. */
export function nextMove(agentId: string, nodes: readonly ActivatedNode[], claims: readonly RankedClaim[], seen: ReadonlySet<string>) {
  const stale = claims.find((c) => c.view.freshness === 'stale');
  if (stale) {
    const ev = stale.claim.evidence.find((e) => stale.view.changed?.some((ch) => ch.evidence.startsWith(e.node ?? e.path))) ?? stale.claim.evidence[0];
    const lines = stale.view.changed?.[0]?.lines_now ?? ev.lines;
    return {
      verb: 'view',
      arguments: { agent_id: agentId, file_path: ev.path, ...(lines ? { offset: lines[0], limit: lines[1] - lines[0] + 1 } : {}) },
      why: `claim ${stale.claim.id} is stale: read what changed, then memorize({"reverify":["${stale.claim.id}"]}) if it still holds, or supersede it`,
    };
  }
  const unseen = nodes.find((n) => !seen.has(n.id)) ?? nodes[0];
  if (unseen) {
    return {
      verb: 'view',
      arguments: { agent_id: agentId, file_path: unseen.path, ...(unseen.lines[0] > 0 ? { offset: unseen.lines[0], limit: unseen.lines[1] - unseen.lines[0] + 1 } : {}) },
      why: claims.length ? `the top node you have not looked at yet; ${claims.length} claim(s) above already cover part of the task` : 'the top node; nothing is remembered about this task yet — memorize what you learn',
    };
  }
  return { verb: 'seek', arguments: { agent_id: agentId, query: '<rephrase the task>' }, why: 'nothing in the graph matches the task words' };
}

export const orientVerb = defineVerb({
  name: 'orient',
  description: 'Starting packet for a task: top activated nodes, remembered claims about them (fresh first, stale marked), your coverage, one next move.',
  input: Type.Object(TaskPacketParams),
  output: Type.Object({
    task: Type.String(),
    nodes: Type.Array(Type.Object({})),
    claims: Type.Array(Type.Object({})),
    coverage: Type.Object({ nodes_seen_before: Type.Number(), claims_seen_before: Type.Number(), claims_relevant: Type.Number(), claims_stale: Type.Number(), nodes_with_claims: Type.Number() }),
    next: Type.Object({ verb: Type.String(), arguments: Type.Object({}), why: Type.String() }),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['orient'],
  next: 'view',
  guide:
    'Nodes: seek matches for the task spread one hop over calls/imports/inheritance. Claims: those whose evidence is on (or in the file of) an activated node, or whose text shares the task’s words; each carries `freshness` computed now — `stale` lists what changed (content hash differs, node or file gone). ' +
    'Private claims are shown only to their author. `seen: true` marks what this agent was already shown this session. The packet fits `token_budget` (default 1500): the best node and the best claim first, then more nodes, then more claims; `budget` says what was dropped.',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const engine = await graph.requireGraph();
    await engine.prepareSeek(); // the seek index from background slices, not built at once by activate's seek
    const { nodes, claims } = await orientOn(memory, engine, args.task, args.top_k ?? 8, args.scope, await memory.claims.visible(call.agentId, scopesOfTier(args.tier)));
    const covered = coverageOf(call.session, call.agentId);
    const move = nextMove(call.agentId, nodes, claims, covered.nodes);
    const fixed = { task: args.task, next: move };
    await tokenizerReady(); // the packet is counted in tokens: a first load of the tables in a turn of its own
    const { packed, budget } = packSections(
      fixed,
      {
        nodes: nodes.map((n) => ({ ...n, ...(covered.nodes.has(n.id) ? { seen: true } : {}) })),
        claims: claims.map((c) => ({ ...c.view, relevance: c.relevance, ...(covered.claims.has(c.claim.id) ? { seen: true } : {}) })),
      },
      args.token_budget ?? DEFAULT_PACKET_TOKENS,
    );
    const stale = claims.filter((c) => c.view.freshness === 'stale').length;
    const coverage = {
      nodes_seen_before: nodes.filter((n) => covered.nodes.has(n.id)).length,
      claims_seen_before: claims.filter((c) => covered.claims.has(c.claim.id)).length,
      claims_relevant: claims.length,
      claims_stale: stale,
      nodes_with_claims: nodes.filter((n) => claims.some((c) => c.claim.evidence.some((e) => e.node === n.id))).length,
    };
    for (const n of packed.nodes) covered.nodes.add((n as { id: string }).id);
    for (const c of packed.claims) covered.claims.add((c as { id: string }).id);
    return { task: args.task, nodes: packed.nodes, claims: packed.claims, coverage, next: move, budget };
  },
});
