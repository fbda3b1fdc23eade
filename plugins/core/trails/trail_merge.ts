/** trail_merge: merges two or more trails into a new one and shows how their investigations connect in the graph. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { graphOf } from '../shared.ts';
import { claimKey } from './claims.ts';
import { connectionsBetween } from './connections.ts';
import { loadTrail, newTrailId, saveTrails, type Claim, type Trail, type TrailNode } from './trail-book.ts';
import type { StateService } from '../../state/api.ts';
import { slicePace } from '../../graph/api.ts';

/** Main-thread time the merge's comparisons take before giving the event loop back. */
const SLICE_MS = 8;

export const trailMergeVerb = defineVerb({
  name: 'trail_merge',
  description: 'Merge two or more trails into a new one, showing how they connect: shared nodes, edges and graph paths between them.',
  input: Type.Object({
    agent_id: AgentId,
    trail_ids: Type.Array(Type.String({ minLength: 1 }), { minItems: 2, maxItems: 10 }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  }),
  output: Type.Object({
    trail_id: Type.String(),
    label: Type.String(),
    merged_from: Type.Array(Type.String()),
    nodes: Type.Number(),
    hypotheses: Type.Number(),
    conclusions: Type.Number(),
    open_questions: Type.Number(),
    connections: Type.Array(Type.Object({})),
    overlapping_claims: Type.Array(Type.Object({})),
    marked_merged: Type.Array(Type.String()),
    left_as_is: Type.Array(Type.Object({})),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['handoff', 'review'],
  next: 'trail_resume',
  guide:
    'Visited nodes are unioned (highest relevance wins; a node\'s and a file\'s fingerprint come from the trail saved last), claims de-duplicated by statement, questions, tags and boosts unioned. ' +
    'Claims from different trails that rest on the same nodes but say different things are listed in overlapping_claims: check they agree. ' +
    'Each pair of trails gets its connections: nodes both visited, direct edges between their nodes, or else up to three shortest graph paths (≤4 hops). ' +
    'Your own source trails are marked merged; other agents’ trails are left as they are.',
  handler: async (args, call) => {
    const ids = [...new Set(args.trail_ids)];
    if (ids.length < 2) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'trail_ids names fewer than two distinct trails', { hint: 'pass at least two different trail ids (trail_list shows them)' });
    const graph = graphOf(call);
    await graph.fresh();
    const engine = graph.engine;
    const state = call.service<StateService>('state');
    const trails = await Promise.all(ids.map((id) => loadTrail(state, call.agentId, id)));

    const visited = new Map<string, TrailNode>();
    const claims = (pick: (t: Trail) => Claim[]) => {
      const byKey = new Map<string, Claim>();
      for (const t of trails) {
        for (const c of pick(t)) {
          const key = claimKey(c.statement);
          const prior = byKey.get(key);
          if (!prior) byKey.set(key, { ...c, supporting_nodes: [...c.supporting_nodes], from: [t.trail_id] });
          else {
            prior.supporting_nodes = [...new Set([...prior.supporting_nodes, ...c.supporting_nodes])];
            if (c.confidence !== undefined) prior.confidence = Math.max(prior.confidence ?? 0, c.confidence);
            prior.from = [...new Set([...(prior.from ?? []), t.trail_id])];
          }
        }
      }
      return [...byKey.values()];
    };
    // Newest look first: a node's fingerprint and a file's hash come from the trail that saw them last,
    // by when it was saved (created_at: updated_at also moves when a trail is marked merged).
    const newestFirst = [...trails].sort((a, b) => b.created_at - a.created_at || a.trail_id.localeCompare(b.trail_id));
    const boosts: Record<string, number> = {};
    const files: Record<string, string> = {};
    for (const t of newestFirst) {
      for (const n of t.visited) {
        const prior = visited.get(n.id);
        if (!prior || n.relevance > prior.relevance) visited.set(n.id, prior ? { ...prior, relevance: n.relevance } : n);
      }
      for (const [id, w] of Object.entries(t.boosts)) if (Math.abs(w) > Math.abs(boosts[id] ?? 0)) boosts[id] = w;
      for (const [path, hash] of Object.entries(t.files)) if (!(path in files)) files[path] = hash;
    }

    const pace = slicePace(SLICE_MS);
    const overlapping: { a: { trail_id: string; statement: string }; b: { trail_id: string; statement: string }; shared_nodes: string[] }[] = [];
    const all = trails.flatMap((t) => [...t.hypotheses, ...t.conclusions].map((c) => ({ t: t.trail_id, c, key: claimKey(c.statement), nodes: new Set(c.supporting_nodes) })));
    for (let i = 0; i < all.length; i++) {
      await pace();
      const x = all[i];
      if (x.nodes.size === 0) continue;
      for (let j = i + 1; j < all.length; j++) {
        const y = all[j];
        if (x.t === y.t || x.key === y.key || y.nodes.size === 0) continue;
        const shared = x.c.supporting_nodes.filter((n) => y.nodes.has(n));
        if (shared.length) overlapping.push({ a: { trail_id: x.t, statement: x.c.statement }, b: { trail_id: y.t, statement: y.c.statement }, shared_nodes: shared });
      }
    }

    const connections = [];
    for (let i = 0; i < trails.length; i++) {
      for (let j = i + 1; j < trails.length; j++) {
        await pace();
        const c = await connectionsBetween(engine, trails[i].visited.map((n) => n.id), trails[j].visited.map((n) => n.id), pace);
        connections.push({ between: [trails[i].trail_id, trails[j].trail_id], ...c, linked: c.shared.length + c.edges.length + c.paths.length > 0 });
      }
    }

    const label = args.label ?? `merge: ${trails.map((t) => t.label).join(' + ')}`.slice(0, 120);
    const now = Date.now();
    const merged: Trail = {
      trail_id: newTrailId(label),
      label,
      agent_id: call.agentId,
      status: 'saved',
      summary: trails.filter((t) => t.summary).map((t) => `${t.label}: ${t.summary}`).join('\n').slice(0, 4000) || undefined,
      hypotheses: claims((t) => t.hypotheses),
      conclusions: claims((t) => t.conclusions),
      open_questions: [...new Set(trails.flatMap((t) => t.open_questions))],
      tags: [...new Set(trails.flatMap((t) => t.tags))],
      visited: [...visited.values()],
      boosts,
      files,
      unresolved: [...new Set(trails.flatMap((t) => t.unresolved))],
      generation: engine.generation,
      created_at: now,
      updated_at: now,
      // What merges a private trail stays as private as its most private source.
      ...(trails.some((t) => t.visibility === 'private') ? { visibility: 'private' as const } : {}),
      merged_from: ids,
    };
    if (!merged.summary) delete merged.summary;
    const mine = trails.filter((t) => t.agent_id === call.agentId);
    await saveTrails(state, [merged, ...mine.map((t) => ({ ...t, status: 'merged' as const, merged_into: merged.trail_id, updated_at: now }))]);
    return {
      trail_id: merged.trail_id,
      label,
      merged_from: ids,
      nodes: merged.visited.length,
      hypotheses: merged.hypotheses.length,
      conclusions: merged.conclusions.length,
      open_questions: merged.open_questions.length,
      connections,
      overlapping_claims: overlapping.slice(0, 20),
      marked_merged: mine.map((t) => t.trail_id),
      left_as_is: trails.filter((t) => t.agent_id !== call.agentId).map((t) => ({ trail_id: t.trail_id, agent_id: t.agent_id, why: "another agent's trail" })),
    };
  },
});
