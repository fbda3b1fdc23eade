/** mission_close: closes a mission with a proof packet; optionally memorizes its verified claims. */
import type { StateService } from '../../state/api.ts';
import { statSync } from 'node:fs';
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { anchorLabel } from '../evidence.ts';
import { budgetReport, MissionBook } from '../missions/book.ts';
import { NON_CLAIMS } from '../missions/progress.ts';
import { memoryCall } from '../call.ts';

export const missionCloseVerb = defineVerb({
  name: 'mission_close',
  description: 'Close a mission with its proof packet (verified claims and their direct evidence, hypotheses, non-claims, gaps, budget used); can memorize the verified claims.',
  input: Type.Object({
    agent_id: AgentId,
    mission_id: Type.String({ minLength: 1 }),
    summary: Type.Optional(Type.String({ maxLength: 4000 })),
    non_claims: Type.Optional(Type.Array(Type.String())),
    gaps: Type.Optional(Type.Array(Type.String())),
    write_light_memory: Type.Optional(Type.Boolean({ default: false, description: 'memorize the verified claims (project scope)' })),
  }),
  output: Type.Object({
    budget: Type.Object({ calls: Type.Object({}), tokens: Type.Object({}), minutes: Type.Object({}), exhausted: Type.Union([Type.String(), Type.Null()]) }),
    memorized: Type.Optional(Type.Object({ stored: Type.Array(Type.Unknown()), duplicates: Type.Array(Type.Unknown()), not_memorized: Type.Optional(Type.Array(Type.Object({ claim: Type.String(), why: Type.String() }))) })),
    proof: Type.Array(Type.Object({})),
    hypotheses: Type.Array(Type.String()),
    non_claims: Type.Array(Type.String()),
    gaps: Type.Array(Type.String()),
    events: Type.Object({ total: Type.Number(), direct: Type.Number(), graph_only: Type.Number() }),
    summary: Type.Optional(Type.String()),
    mission_id: Type.String(),
    status: Type.String(),
    task: Type.String(),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['handoff'],
  next: 'orient',
  handler: async (args, call) => {
    const { memory, graph } = await memoryCall(call);
    const book = new MissionBook(call.service<StateService>('state').team);
    const m = await book.load(call.agentId, args.mission_id, { open: true });
    book.charge(m, false);
    const verified = m.claims.filter((c) => c.status === 'verified');
    let memorized: { stored: string[]; duplicates: string[]; not_memorized?: { claim: string; why: string }[] } | undefined;
    if (args.write_light_memory && verified.length) {
      // Evidence is what the mission read directly; only files can anchor (a command output cannot).
      const isFile = (p: string) => {
        try {
          return statSync(graph.engine.resolvePath(p).absolute).isFile();
        } catch {
          return false;
        }
      };
      // A claim no file read backs (only directories or command output) would be stored unanchored, never stale: it is left out, said so.
      const anchored = verified.map((c) => ({ c, files: c.direct_refs.filter(isFile) }));
      const kept = anchored.filter((x) => x.files.length > 0);
      const out = kept.length
        ? await memory.memorize(call.agentId, { scope: 'project', topic: m.task, claims: kept.map(({ c, files }) => ({ text: c.text, kind: 'fact' as const, confidence: c.confidence, evidence: files })) })
        : { stored: [], duplicates: [] };
      const left = anchored.filter((x) => x.files.length === 0).map(({ c }) => ({ claim: c.text, why: `no file read backs it (${c.direct_refs.join(', ')}): memorize it with the file or lines that show it` }));
      memorized = { stored: out.stored.map((c) => `${c.id} (${c.evidence.map(anchorLabel).join(', ')})`), duplicates: out.duplicates.map((d) => d.existing.id), ...(left.length ? { not_memorized: left } : {}) };
    }
    m.status = 'closed';
    m.closed_at = Date.now();
    const answer = {
      mission_id: m.id,
      status: 'closed',
      task: m.task,
      ...(args.summary ? { summary: args.summary } : {}),
      proof: verified.map((c) => ({ claim: c.text, direct_evidence: c.direct_refs, events: m.events.filter((e) => e.evidence_class === 'direct' && e.refs.some((r) => c.direct_refs.includes(r))).map((e) => `e${e.seq} ${e.action}`) })),
      hypotheses: m.claims.filter((c) => c.status === 'unverified').map((c) => c.text),
      non_claims: [...NON_CLAIMS[m.mode], ...(args.non_claims ?? [])],
      gaps: args.gaps ?? [],
      events: { total: m.events.length, direct: m.events.filter((e) => e.evidence_class === 'direct').length, graph_only: m.events.filter((e) => e.evidence_class === 'graph_only').length },
      ...(memorized ? { memorized } : {}),
      budget: budgetReport(m),
    };
    await book.save(m, answer);
    return answer;
  },
});
