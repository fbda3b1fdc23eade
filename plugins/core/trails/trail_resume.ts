/**
 * trail_resume: restores a trail for the calling agent — re-applies its activation boosts to the
 * agent's ranking, flags the nodes that changed since it was saved, and re-judges its hypotheses.
 */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { graphOf } from '../shared.ts';
import { FileReader, standing, type NodeStanding } from './fingerprint.ts';
import { loadTrail, type Claim } from './trail-book.ts';
import type { StateService } from '../../state/api.ts';

/** Boost given on resume to a visited node without an explicit one, per unit of relevance. */
const VISITED_BOOST = 0.25;
/** Above this share of missing nodes a resume needs `force`. */
const MISSING_LIMIT = 0.5;

export const trailResumeVerb = defineVerb({
  name: 'trail_resume',
  description: "Resume a saved trail (anyone's): re-applies its boosts to your ranking, flags nodes changed since, re-checks its hypotheses.",
  input: Type.Object({
    agent_id: AgentId,
    trail_id: Type.String({ minLength: 1 }),
    force: Type.Boolean({ default: false, description: 'Resume even if over half its nodes are gone' }),
  }),
  output: Type.Object({
    visited: Type.Array(Type.Object({})),
    hypotheses: Type.Array(Type.Object({})),
    conclusions: Type.Array(Type.Object({})),
    open_questions: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    boosts: Type.Object({ source: Type.String(), applied: Type.Number(), reads: Type.String() }),
    next: Type.Array(Type.Object({})),
    forced: Type.Optional(Type.Boolean()),
    saved_at: Type.String(),
    generation: Type.Object({ saved: Type.Number(), now: Type.Number() }),
    nodes: Type.Object({ missing: Type.Number(), unchanged: Type.Number(), moved: Type.Number(), changed: Type.Number(), unindexed: Type.Number(), total: Type.Number() }),
    stale_nodes: Type.Array(Type.Object({})),
    summary: Type.Optional(Type.String()),
    merged_into: Type.Optional(Type.String()),
    trail_id: Type.String(),
    label: Type.String(),
    saved_by: Type.String(),
    resumed_by: Type.String(),
    status: Type.String(),
  }),
  tiers: ['full'],
  effect: 'session',
  stages: ['orient', 'handoff'],
  guide:
    'Boosts go to the resuming agent’s activation boosts under source `trail:<id>` (replacing an earlier resume of the same trail) and change the ranking of perspective routes and activate for that agent. ' +
    'Each visited node is checked against its fingerprint: unchanged, moved (same text, new lines), changed (text differs), missing, or unindexed (its file was edited since the graph read it: ingest, then resume again). ' +
    'If more than half are missing the resume is refused as stale unless force: true (then only surviving nodes are boosted). ' +
    'Hypotheses resting on changed or missing nodes are marked needs_recheck (or unsupported when all their nodes are gone). Nothing is written to the store.',
  handler: async (args, call) => {
    const graph = graphOf(call);
    const trail = await loadTrail(call.service<StateService>('state'), call.agentId, args.trail_id);
    const needsGraph = trail.visited.length > 0 || Object.keys(trail.boosts).length > 0;
    const engine = needsGraph ? await graph.requireGraph() : (await graph.fresh(), graph.engine);
    const files = new FileReader(engine);
    const status = new Map<string, { status: NodeStanding; lines?: [number, number] | null }>();
    // On the generation the trail was saved on the graph has re-read nothing since: a file whose text
    // differs from the saved one was edited and not ingested, and its nodes' line ranges are the old
    // ones, so hashing the new text over them says nothing (two lines added at the top "change" every node below).
    const unread = (path: string) => engine.generation === trail.generation && trail.files[path] !== undefined && (files.get(path)?.hash ?? 'missing') !== trail.files[path];
    for (const n of trail.visited) {
      const now = standing(engine, n, files);
      status.set(n.id, now.status === 'changed' && unread(n.path) ? { status: 'unindexed', lines: now.lines } : now);
    }
    for (const id of Object.keys(trail.boosts)) if (!status.has(id)) status.set(id, { status: engine.getNode(id) ? 'unchanged' : 'missing' });
    const counts: Record<NodeStanding, number> = { unchanged: 0, moved: 0, changed: 0, missing: 0, unindexed: 0 };
    for (const n of trail.visited) counts[status.get(n.id)!.status]++;
    const missing = trail.visited.filter((n) => status.get(n.id)!.status === 'missing').map((n) => n.id);
    if (trail.visited.length > 0 && missing.length / trail.visited.length > MISSING_LIMIT && !args.force) {
      throw new M1ndError(ErrorCodes.STATE_STALE, `trail "${trail.trail_id}" is stale: ${missing.length} of its ${trail.visited.length} visited nodes no longer exist in the graph`, {
        hint: `resume anyway with trail_resume({"agent_id":"${call.agentId}","trail_id":"${trail.trail_id}","force":true}) — only the surviving nodes are boosted`,
        data: { missing: missing.slice(0, 20), missing_count: missing.length, visited: trail.visited.length },
      });
    }

    const source = `trail:${trail.trail_id}`;
    const boosts: Record<string, number> = {};
    for (const n of trail.visited) if (status.get(n.id)!.status !== 'missing') boosts[n.id] = VISITED_BOOST * n.relevance;
    for (const [id, w] of Object.entries(trail.boosts)) if (status.get(id)!.status !== 'missing') boosts[id] = w;
    graph.boosts.clear(call.agentId, source);
    const applied = graph.boosts.add(call.agentId, boosts, source);

    const judge = (c: Claim) => {
      const support = c.supporting_nodes.map((id) => ({ id, status: status.get(id)?.status ?? (engine.getNode(id) ? 'unchanged' : 'missing') }));
      const weak = support.filter((s) => s.status === 'changed' || s.status === 'missing' || s.status === 'unindexed');
      const verdict = support.length > 0 && weak.length === support.length && weak.every((s) => s.status === 'missing') ? 'unsupported' : weak.length > 0 ? 'needs_recheck' : 'as_saved';
      return {
        statement: c.statement,
        ...(c.confidence !== undefined ? { confidence: c.confidence } : {}),
        status: verdict,
        ...(weak.length ? { why: weak.map((s) => `${s.id} ${s.status === 'unindexed' ? 'in a file edited since the graph read it (ingest to judge)' : s.status}`).join('; ') } : {}),
      };
    };
    const staleNodes = trail.visited
      .filter((n) => ['changed', 'missing', 'moved', 'unindexed'].includes(status.get(n.id)!.status))
      .map((n) => ({ id: n.id, status: status.get(n.id)!.status, path: n.path, was_lines: n.lines, ...(status.get(n.id)!.lines ? { lines: status.get(n.id)!.lines } : {}) }));
    const changed = staleNodes.filter((n) => n.status === 'changed' && n.lines);
    const top = [...trail.visited].sort((a, b) => b.relevance - a.relevance).filter((n) => status.get(n.id)!.status !== 'missing');
    return {
      trail_id: trail.trail_id,
      label: trail.label,
      saved_by: trail.agent_id,
      resumed_by: call.agentId,
      status: trail.status,
      ...(trail.merged_into ? { merged_into: trail.merged_into } : {}),
      ...(trail.summary ? { summary: trail.summary } : {}),
      saved_at: new Date(trail.created_at).toISOString(),
      generation: { saved: trail.generation, now: engine.generation },
      nodes: { total: trail.visited.length, ...counts },
      stale_nodes: staleNodes.slice(0, 30),
      ...(args.force && missing.length ? { forced: true } : {}),
      visited: top.slice(0, 20).map((n) => ({ id: n.id, relevance: n.relevance, status: status.get(n.id)!.status, ...(n.note ? { note: n.note } : {}) })),
      hypotheses: trail.hypotheses.map(judge),
      conclusions: trail.conclusions.map(judge),
      open_questions: trail.open_questions,
      tags: trail.tags,
      boosts: { source, applied, reads: 'your perspective routes and activate rank these nodes higher until you clear them' },
      next: [
        ...(counts.unindexed ? [{ tool: 'ingest', arguments: { agent_id: call.agentId, path: engine.root, incremental: true }, why: `${counts.unindexed} node${counts.unindexed === 1 ? '' : 's'} sit in files edited since the graph read them; resume again after` }] : []),
        ...changed.slice(0, 3).map((n) => ({ tool: 'view', arguments: { agent_id: call.agentId, file_path: n.path, offset: n.lines![0] - 1, limit: n.lines![1] - n.lines![0] + 1 }, why: `${n.id} changed since the trail was saved` })),
        ...(top[0] ? [{ tool: 'perspective_start', arguments: { agent_id: call.agentId, query: trail.label, anchor_node: top[0].id }, why: 'walk on from the most relevant node' }] : []),
      ],
    };
  },
});
