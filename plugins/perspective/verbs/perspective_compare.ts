/** perspective_compare: shared and unique nodes of two perspectives, and how they differ by dimension. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import type { CodeGraphEngine } from '../../graph/api.ts';
import { PerspectiveId, perspectiveGraphCall } from '../context.ts';
import { centralityOf, round } from '../graph-view.ts';
import type { Perspective } from '../state.ts';

const DIMENSIONS = ['files', 'kinds', 'centrality', 'depth', 'routes'] as const;
const SHOWN = 50;

export const perspectiveCompareVerb = defineVerb({
  name: 'perspective_compare',
  description: 'Compare two of your perspectives: shared and unique visited nodes, plus deltas by files, kinds, centrality, depth and routes.',
  input: Type.Object({
    agent_id: AgentId,
    perspective_id_a: PerspectiveId,
    perspective_id_b: PerspectiveId,
    dimensions: Type.Array(StringEnum(DIMENSIONS), { default: [...DIMENSIONS], description: 'Deltas to compute' }),
  }),
  output: Type.Object({
    a: Type.Object({ branch_of: Type.Optional(Type.String()), perspective_id: Type.String(), name: Type.String(), focus: Type.String() }),
    b: Type.Object({ branch_of: Type.Optional(Type.String()), perspective_id: Type.String(), name: Type.String(), focus: Type.String() }),
    same_focus: Type.Boolean(),
    shared_nodes: Type.Array(Type.String()),
    unique_to_a: Type.Array(Type.String()),
    unique_to_b: Type.Array(Type.String()),
    counts: Type.Object({ shared: Type.Number(), unique_to_a: Type.Number(), unique_to_b: Type.Number() }),
    jaccard: Type.Number(),
    dimension_deltas: Type.Object({}),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review', 'handoff'],
  handler: async (args, call) => {
    const { engine, book, agentId } = await perspectiveGraphCall(call);
    const a = book.load(agentId, args.perspective_id_a);
    const b = book.load(agentId, args.perspective_id_b);
    const { shared, onlyA, onlyB } = split(a.visited, b.visited);
    const union = shared.length + onlyA.length + onlyB.length;
    const deltas: Record<string, unknown> = {};
    for (const d of new Set(args.dimensions)) deltas[d] = dimension(d, engine, a, b);
    return {
      a: summary(a),
      b: summary(b),
      same_focus: a.focus === b.focus,
      shared_nodes: shared.slice(0, SHOWN),
      unique_to_a: onlyA.slice(0, SHOWN),
      unique_to_b: onlyB.slice(0, SHOWN),
      counts: { shared: shared.length, unique_to_a: onlyA.length, unique_to_b: onlyB.length },
      jaccard: union ? round(shared.length / union) : 1,
      dimension_deltas: deltas,
    };
  },
});

function summary(p: Perspective) {
  return { perspective_id: p.id, name: p.name, focus: p.focus, ...(p.parent ? { branch_of: p.parent } : {}) };
}

function split(a: readonly string[], b: readonly string[]) {
  const inA = new Set(a);
  const inB = new Set(b);
  return { shared: a.filter((x) => inB.has(x)), onlyA: a.filter((x) => !inB.has(x)), onlyB: b.filter((x) => !inA.has(x)) };
}

function dimension(d: (typeof DIMENSIONS)[number], engine: CodeGraphEngine, a: Perspective, b: Perspective): unknown {
  const g = engine.graph;
  switch (d) {
    case 'files': {
      const files = (p: Perspective) => [...new Set(p.visited.map((id) => g.get(id)?.path).filter((x): x is string => x !== undefined))];
      const s = split(files(a), files(b));
      return { shared: s.shared, only_a: s.onlyA, only_b: s.onlyB };
    }
    case 'kinds': {
      const count = (p: Perspective) => {
        const c: Record<string, number> = {};
        for (const id of p.visited) {
          const k = g.get(id)?.kind ?? 'missing';
          c[k] = (c[k] ?? 0) + 1;
        }
        return c;
      };
      const ca = count(a);
      const cb = count(b);
      return Object.fromEntries([...new Set([...Object.keys(ca), ...Object.keys(cb)])].sort().map((k) => [k, { a: ca[k] ?? 0, b: cb[k] ?? 0, delta: (cb[k] ?? 0) - (ca[k] ?? 0) }]));
    }
    case 'centrality': {
      const c = centralityOf(engine);
      const mean = (p: Perspective) => {
        const xs = p.visited.map((id) => g.indexOf(id)).filter((i) => i >= 0).map(c);
        return xs.length ? round(xs.reduce((s, x) => s + x, 0) / xs.length) : 0;
      };
      const ma = mean(a);
      const mb = mean(b);
      return { a: ma, b: mb, delta: round(mb - ma), reads: 'mean centrality of visited nodes (0..1): higher walks closer to the core' };
    }
    case 'depth':
      return { a: a.history.length, b: b.history.length, delta: b.history.length - a.history.length, moves: { a: a.moves.length, b: b.moves.length } };
    case 'routes': {
      const s = split(a.routes?.items.map((r) => r.t) ?? [], b.routes?.items.map((r) => r.t) ?? []);
      return { shared: s.shared.slice(0, SHOWN), only_a: s.onlyA.length, only_b: s.onlyB.length };
    }
  }
}
