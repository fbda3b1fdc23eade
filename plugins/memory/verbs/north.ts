/** north: the one-shot pre-orientation packet — trust, task focus, dated memory, sufficiency, one next move, unknowns. */
import { defineVerb, tokenizerReady, Type } from '../../../core/index.ts';
import type { StateService } from '../../state/api.ts';
import { memoryCall } from '../call.ts';
import { coverageOf } from '../coverage.ts';
import { anchorCovers, orientOn } from '../orientation.ts';
import { DEFAULT_PACKET_TOKENS, packSections, TaskPacketParams } from '../packet.ts';
import { scopesOfTier } from '../scopes.ts';
import { bootEntries } from './boot_memory.ts';
import { nextMove } from './orient.ts';

export const northVerb = defineVerb({
  name: 'north',
  description: 'Call first on a task: trust of the graph, focus nodes, dated memory (claims, boot facts), whether memory suffices, one next move, unknowns.',
  input: Type.Object(TaskPacketParams),
  output: Type.Object({
    task: Type.String(),
    trust: Type.Union([Type.Object({ mode: Type.String(), nodes: Type.Number(), read_only: Type.Boolean() }), Type.Object({ mode: Type.String(), nodes: Type.Number(), generation: Type.Number(), read_only: Type.Boolean() })]),
    next: Type.Object({ verb: Type.String(), arguments: Type.Object({}), why: Type.String() }),
    unknowns: Type.Array(Type.String()),
    focus: Type.Optional(Type.Array(Type.Object({}))),
    memory: Type.Optional(Type.Array(Type.Object({}))),
    boot: Type.Optional(Type.Array(Type.Object({}))),
    sufficiency: Type.Optional(Type.String()),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['orient'],
  next: 'view',
  guide:
    '`trust.mode`: needs_ingest (empty graph, writable), orientation_only (empty graph, read-only), stale_graph (the store moved on since load), full_trust. ' +
    '`sufficiency`: sufficient when fresh claims cover the top node and none of the relevant claims is stale; partial when some memory applies; insufficient when none does. `unknowns` names what the packet cannot tell you.',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const engine = graph.engine;
    const readOnly = !graph.writable;
    if (!engine.storeExists() || engine.graph.nodeCount === 0) {
      return {
        task: args.task,
        trust: { mode: readOnly ? 'orientation_only' : 'needs_ingest', nodes: 0, read_only: readOnly },
        next: readOnly
          ? { verb: 'soul_read', arguments: { agent_id: call.agentId }, why: 'no graph and this server is read-only: read the doctrine, ask for a writable ingest' }
          : { verb: 'ingest', arguments: { agent_id: call.agentId, path: engine.root }, why: 'no graph yet: ingest, then call north again' },
        unknowns: ['the code graph (nothing ingested)'],
      };
    }
    const status = engine.status();
    await engine.prepareSeek(); // the seek index from background slices, not built at once by activate's seek
    const scopes = scopesOfTier(args.tier);
    const { nodes, claims } = await orientOn(memory, engine, args.task, args.top_k ?? 8, args.scope, await memory.claims.visible(call.agentId, scopes));
    const boot = await bootEntries(call.service<StateService>('state').team, scopes.filter((s) => s !== 'agent'));
    const stale = claims.filter((c) => c.view.freshness === 'stale');
    const fresh = claims.filter((c) => c.view.freshness === 'fresh');
    const top = nodes[0];
    const topCovered = top && fresh.some((c) => c.claim.evidence.some((e) => anchorCovers(e, top)));
    const sufficiency = claims.length === 0 ? 'insufficient' : topCovered && stale.length === 0 ? 'sufficient' : 'partial';
    const covered = coverageOf(call.session, call.agentId);
    const move = nextMove(call.agentId, nodes, claims, covered.nodes);
    const unknowns = [
      ...nodes.filter((n) => !claims.some((c) => c.claim.evidence.some((e) => anchorCovers(e, n)))).slice(0, 3).map((n) => `nothing remembered about ${n.id}`),
      ...stale.slice(0, 3).map((c) => `claim ${c.claim.id} is stale (${c.view.changed?.map((x) => `${x.evidence} ${x.what}`).join(', ')})`),
      ...(nodes.length === 0 ? ['no node matches the task words'] : []),
      ...(status.stale ? ['the graph is behind the store: the next query reloads it'] : []),
    ];
    const fixed = {
      task: args.task,
      trust: { mode: status.stale ? 'stale_graph' : 'full_trust', nodes: status.nodes, generation: status.loadedGeneration, read_only: readOnly },
      sufficiency,
      next: move,
      unknowns,
    };
    await tokenizerReady(); // the packet is counted in tokens: a first load of the tables in a turn of its own
    const { packed, budget } = packSections(
      fixed,
      {
        focus: nodes.map((n) => ({ id: n.id, path: n.path, lines: n.lines, score: n.score })),
        memory: claims.map((c) => ({ id: c.claim.id, text: c.view.text, kind: c.view.kind, freshness: c.view.freshness, ...(c.view.changed ? { changed: c.view.changed } : {}), author: c.view.author, verified: c.view.verified.slice(0, 10), age_days: c.view.age_days })),
        boot: boot.map((e) => ({ key: e.key, value: e.value, set: new Date(e.set_at).toISOString().slice(0, 10) })),
      },
      args.token_budget ?? DEFAULT_PACKET_TOKENS,
    );
    for (const n of packed.focus) covered.nodes.add((n as { id: string }).id);
    for (const c of packed.memory) covered.claims.add((c as { id: string }).id);
    return { ...fixed, focus: packed.focus, memory: packed.memory, boot: packed.boot, budget };
  },
});
