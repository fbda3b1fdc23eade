/** trail_save: stores an investigation — visited nodes, hypotheses, conclusions, questions, boosts — as a trail. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { graphOf } from '../shared.ts';
import { ClaimInput, toClaim } from './claims.ts';
import { fingerprint, FileReader } from './fingerprint.ts';
import { newTrailId, saveTrails, type Trail, type TrailNode } from './trail-book.ts';
import type { StateService } from '../../state/api.ts';

/** Other nodes named alike shown for an ambiguous name. */
const AMBIGUOUS_SHOWN = 3;

const VisitedInput = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      node_id: Type.String({ minLength: 1 }),
      relevance: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      note: Type.Optional(Type.String({ maxLength: 300 })),
    },
    { additionalProperties: false },
  ),
]);

export const trailSaveVerb = defineVerb({
  name: 'trail_save',
  description: 'Save an investigation as a trail anyone can resume: visited nodes, hypotheses, conclusions, open questions, tags, activation boosts.',
  input: Type.Object({
    agent_id: AgentId,
    label: Type.String({ minLength: 1, maxLength: 120 }),
    hypotheses: Type.Array(ClaimInput, { default: [], maxItems: 50, description: 'Sentences, or {statement, confidence, supporting_nodes}' }),
    conclusions: Type.Array(ClaimInput, { default: [], maxItems: 50 }),
    open_questions: Type.Array(Type.String({ minLength: 1 }), { default: [], maxItems: 50 }),
    tags: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { default: [], maxItems: 20 }),
    summary: Type.Optional(Type.String({ maxLength: 4000 })),
    visited_nodes: Type.Array(VisitedInput, { default: [], maxItems: 500, description: 'Node ids, or {node_id, relevance 0..1, note}' }),
    visibility: StringEnum(['team', 'private'] as const, { default: 'team', description: 'private: only you can list or resume it' }),
    activation_boosts: Type.Record(Type.String(), Type.Number({ minimum: -1, maximum: 1 }), { default: {}, description: 'Node id → boost re-applied on resume' }),
  }),
  output: Type.Object({
    unresolved: Type.Optional(Type.Array(Type.String())),
    ambiguous: Type.Optional(Type.Array(Type.Object({ name: Type.String(), chose: Type.String(), also: Type.Array(Type.String()) }), { description: 'Names several nodes carry: the one saved, and others (pass an id to pick another)' })),
    note: Type.Optional(Type.String()),
    trail_id: Type.String(),
    label: Type.String(),
    status: Type.String(),
    nodes: Type.Number(),
    boosts: Type.Number(),
    hypotheses: Type.Number(),
    conclusions: Type.Number(),
    open_questions: Type.Number(),
    generation: Type.Number(),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['handoff'],
  next: 'trail_resume',
  guide:
    'A trail is stored in the workspace store and can be resumed by any agent, unless saved with visibility "private" (then only you see it). Nodes may be given by id, path or name; each is fingerprinted (lines and a hash of its text) so trail_resume can flag what changed since. ' +
    'activation_boosts (node → -1..1) are re-applied on resume to the resuming agent’s ranking (perspective routes, activate); visited nodes without an explicit boost get 0.25 × relevance. ' +
    'Names that match no node are kept in `unresolved` and reported; a name several nodes carry saves the best-ranked one and lists the others in `ambiguous` (pass an id to pick another).',
  handler: async (args, call) => {
    const graph = graphOf(call);
    const mentions = args.visited_nodes.length + Object.keys(args.activation_boosts).length + [...args.hypotheses, ...args.conclusions].filter((c) => typeof c !== 'string' && c.supporting_nodes?.length).length;
    // A trail of words alone needs no graph; one naming nodes does.
    const engine = mentions > 0 ? await graph.requireGraph() : (await graph.fresh(), graph.engine);
    const unresolved = new Set<string>();
    const ambiguous = new Map<string, { name: string; chose: string; also: string[] }>();
    const resolve = (name: string): string | null => {
      // Ids, paths and exact names only: a loose text match would save an unrelated node.
      const [match, ...rest] = engine.findNodes(name, { limit: AMBIGUOUS_SHOWN + 1 });
      const node = match && match.via !== 'seek' ? match.node : null;
      if (!node) unresolved.add(name);
      // A name several nodes carry alike (same kind of match, same spelling): the pick is told, with the others.
      const alike = node ? rest.filter((m) => m.via === match.via && m.node.label === node.label) : [];
      if (node && alike.length && !ambiguous.has(name)) ambiguous.set(name, { name, chose: node.id, also: alike.map((m) => m.node.id) });
      return node?.id ?? null;
    };
    const files = new FileReader(engine);
    const visited = new Map<string, TrailNode>();
    for (const v of args.visited_nodes) {
      const entry = typeof v === 'string' ? { node_id: v } : v;
      const id = resolve(entry.node_id);
      if (!id) continue;
      const relevance = entry.relevance ?? 1;
      const prior = visited.get(id);
      if (prior && prior.relevance >= relevance) continue;
      visited.set(id, { id, relevance, ...(entry.note ? { note: entry.note } : {}), ...fingerprint(engine.getNode(id)!, files) });
    }
    const boosts: Record<string, number> = {};
    for (const [name, weight] of Object.entries(args.activation_boosts)) {
      const id = resolve(name);
      if (id && weight !== 0) boosts[id] = weight;
    }
    const claim = (c: (typeof args.hypotheses)[number]) => toClaim(c, (n) => resolve(n) ?? n);
    const fileHashes: Record<string, string> = {};
    for (const n of visited.values()) {
      const f = files.get(n.path);
      if (n.lines) fileHashes[n.path] = f ? f.hash : 'missing';
    }
    const now = Date.now();
    const trail: Trail = {
      trail_id: newTrailId(args.label),
      label: args.label,
      agent_id: call.agentId,
      status: 'saved',
      ...(args.summary ? { summary: args.summary } : {}),
      hypotheses: args.hypotheses.map(claim),
      conclusions: args.conclusions.map(claim),
      open_questions: [...new Set(args.open_questions)],
      tags: [...new Set(args.tags)],
      visited: [...visited.values()],
      boosts,
      files: fileHashes,
      unresolved: [...unresolved],
      generation: engine.generation,
      created_at: now,
      updated_at: now,
      ...(args.visibility === 'private' ? { visibility: 'private' as const } : {}),
    };
    if (trail.visited.length === 0 && trail.hypotheses.length + trail.conclusions.length + trail.open_questions.length === 0 && !trail.summary) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'this trail would be empty: no visited node resolved and no hypothesis, conclusion, question or summary given', {
        hint: 'pass visited_nodes (ids from seek or perspective routes) and what you concluded',
        data: { unresolved: trail.unresolved },
      });
    }
    await saveTrails(call.service<StateService>('state'), [trail]);
    return {
      trail_id: trail.trail_id,
      label: trail.label,
      status: trail.status,
      nodes: trail.visited.length,
      boosts: Object.keys(boosts).length,
      hypotheses: trail.hypotheses.length,
      conclusions: trail.conclusions.length,
      open_questions: trail.open_questions.length,
      generation: trail.generation,
      ...(trail.unresolved.length ? { unresolved: trail.unresolved, note: 'these names matched no node and were left out (supporting nodes keep the name as given)' } : {}),
      ...(ambiguous.size ? { ambiguous: [...ambiguous.values()] } : {}),
    };
  },
});
