/** delegate: a hand-off packet for a sub-agent — anchors, memory slice, dependents, headers, proving calls, unknowns, success criteria. */
import { randomBytes } from 'node:crypto';
import { AgentId, defineVerb, tokenizerReady, Type } from '../../../core/index.ts';
import { memoryCall } from '../call.ts';
import { DELEGATIONS_NAMESPACE, type DelegationRecord } from '../delegations.ts';
import { activate, anchorCovers, relevantClaims, type ActivatedNode } from '../orientation.ts';
import { MAX_PACKET_TOKENS, packSections } from '../packet.ts';
import { nodeAnchorFiles } from '../settle.ts';

const SPREAD = new Set(['calls', 'imports', 'inherits', 'implements', 'references']);

export const delegateVerb = defineVerb({
  name: 'delegate',
  description: 'Hand-off packet for a sub-agent: anchors, memory slice, dependents, staleness and coverage, tests proving each editable file, unknowns, success criteria.',
  input: Type.Object({
    agent_id: AgentId,
    task: Type.String({ minLength: 1 }),
    scope: Type.Optional(Type.Object({ paths: Type.Optional(Type.Array(Type.String())), seeds: Type.Optional(Type.Array(Type.String())) })),
    budget: Type.Optional(Type.Object({ tokens: Type.Optional(Type.Integer({ minimum: 300, maximum: MAX_PACKET_TOKENS, default: 2000 })), max_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 40 })) })),
    subagent_hint: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  output: Type.Object({
    anchors: Type.Array(Type.Object({})),
    memory: Type.Array(Type.Object({})),
    dependents: Type.Array(Type.Object({})),
    prompt_markdown: Type.String(),
    recorded: Type.Boolean(),
    delegation_id: Type.String(),
    task: Type.String(),
    editable: Type.Array(Type.String()),
    headers: Type.Object({ staleness: Type.Object({}), coverage: Type.Object({}) }),
    prove: Type.Array(Type.Object({})),
    unknowns: Type.Array(Type.String()),
    success_criteria: Type.Array(Type.String()),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['handoff', 'plan'],
  next: 'debrief',
  guide:
    'Anchors are `scope.seeds` (node ids or names; unresolvable ones abstain) or the nodes the task activates. Editable files are `scope.paths`, else the anchors’ files. ' +
    '`prove` lists, per editable file, the test files that depend on it. The packet is recorded (a writable server only) so `debrief` can grade the sub-agent’s touched paths against it. `prompt_markdown` is ready to append to the sub-agent’s brief.',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const engine = await graph.requireGraph();
    const maxNodes = args.budget?.max_nodes ?? 40;
    const visible = await memory.claims.visible(call.agentId, ['project', 'team']);
    await memory.settle(nodeAnchorFiles(visible), call.signal);
    const unresolved: string[] = [];
    let anchors: ActivatedNode[] = [];
    for (const s of args.scope?.seeds ?? []) {
      try {
        const n = graph.node(s);
        anchors.push({ id: n.id, kind: n.kind, path: n.path, lines: [n.startLine, n.endLine], score: 1, via: 'seed' });
      } catch {
        unresolved.push(s);
      }
    }
    if (!args.scope?.seeds?.length) await engine.prepareSeek(); // the seek index from background slices
    if (!args.scope?.seeds?.length) anchors = activate(engine, args.task, Math.min(8, maxNodes), args.scope?.paths?.length === 1 ? args.scope.paths[0] : undefined);
    const editable = args.scope?.paths?.length ? args.scope.paths.map((p) => graph.run(() => engine.resolvePath(p)).relative) : [...new Set(anchors.map((a) => a.path))];
    const dependents = new Map<string, string>();
    for (const a of anchors) {
      for (const e of engine.graph.incoming(a.id)) if (SPREAD.has(e.relation) && dependents.size < maxNodes && !anchors.some((x) => x.id === e.source)) dependents.set(e.source, `${e.relation} ${a.id}`);
    }
    const tests = new Map<string, string[]>();
    for (const file of editable) {
      const found = new Set<string>();
      const node = engine.getNode(`file:${file}`);
      const members = node ? [node.id, ...engine.graph.outgoing(node.id, 'contains').map((e) => e.target)] : [];
      for (const m of members) for (const e of engine.graph.incoming(m)) {
        const src = engine.getNode(e.source);
        const srcFile = src && engine.getNode(`file:${src.path}`);
        if (srcFile?.isTest) found.add(srcFile.path);
      }
      tests.set(file, [...found].sort());
    }
    const claims = relevantClaims(memory, visible, args.task, anchors);
    const stale = claims.filter((c) => c.view.freshness === 'stale');
    const id = `d_${randomBytes(5).toString('hex')}`;
    const prove = editable.map((f) => ({ path: f, tests: tests.get(f) ?? [] }));
    const unknowns = [
      ...unresolved.map((s) => `seed "${s}" is not in the graph`),
      ...prove.filter((p) => p.tests.length === 0).map((p) => `no test depends on ${p.path}: behaviour there is unproven`),
      ...(claims.length === 0 ? ['no memory about this task'] : []),
      'runtime behaviour, other repositories and team-only doctrine are not in this packet',
    ];
    const success = [
      `touch only: ${editable.join(', ') || '(no editable path)'}`,
      ...prove.filter((p) => p.tests.length).map((p) => `tests pass: ${p.tests.join(', ')}`),
      ...stale.map((c) => `re-check stale claim ${c.claim.id} before relying on it`),
      'report findings as claims with evidence (paths, line ranges)',
    ];
    const counted = (state: string) => claims.filter((c) => c.view.freshness === state).length;
    const headers = { staleness: { claims_stale: stale.length, claims_fresh: counted('fresh'), claims_unanchored: counted('unanchored'), graph_generation: engine.generation }, coverage: { anchors: anchors.length, anchors_with_memory: anchors.filter((a) => claims.some((c) => c.claim.evidence.some((e) => anchorCovers(e, a)))).length } };
    const fixed = { delegation_id: id, task: args.task, editable, headers, prove, unknowns, success_criteria: success };
    await tokenizerReady(); // the packet is counted in tokens: a first load of the tables in a turn of its own
    const { packed, budget } = packSections(
      fixed,
      {
        anchors: anchors.map((a) => ({ id: a.id, path: a.path, lines: a.lines })),
        memory: claims.map((c) => ({ id: c.claim.id, text: c.view.text, freshness: c.view.freshness, evidence: c.view.evidence })),
        dependents: [...dependents].map(([node, via]) => ({ node, via })),
      },
      args.budget?.tokens ?? 2000,
    );
    const prompt = [
      `## Delegated task (${id})`,
      args.task,
      ...(args.subagent_hint ? ['', args.subagent_hint] : []),
      '',
      `Edit only: ${editable.map((p) => `\`${p}\``).join(', ')}`,
      `Start from: ${(packed.anchors as { id: string }[]).map((a) => `\`${a.id}\``).join(', ')}`,
      ...(packed.memory.length ? ['', 'Known (claims from shared memory, verify before relying):', ...(packed.memory as { text: string; freshness: string }[]).map((c) => `- [${c.freshness}] ${c.text}`)] : []),
      '',
      'Done when:',
      ...success.map((s) => `- ${s}`),
    ].join('\n');
    const recorded = graph.writable;
    if (recorded) {
      const rec: DelegationRecord = { delegation_id: id, agent_id: call.agentId, task: args.task, editable, anchors: anchors.map((a) => a.id), claim_ids: claims.map((c) => c.claim.id), tests: [...new Set(prove.flatMap((p) => p.tests))], created_at: Date.now() };
      engine.memory.set(DELEGATIONS_NAMESPACE, id, rec);
    }
    return { ...fixed, anchors: packed.anchors, memory: packed.memory, dependents: packed.dependents, prompt_markdown: prompt, recorded, budget };
  },
});
