/** type_trace: where a type is used across files (references, subtyping, construction), transitively. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { NodeRefSchema, RELATIONS } from '../../graph/api.ts';
import { pathLine } from '../../graph/api.ts';
import { CONTAINS } from '../../graph/api.ts';
import { pathTo, propagate, type Direction, type Seed } from '../../graph/api.ts';
import { confidenceFilter, edgeConfidence } from '../../graph/api.ts';
import { TYPE_USAGE_PROFILE } from '../../graph/api.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, resolveNodeArg, round3, type ResolvedNode } from './graph-call.ts';

const WALK: Record<'forward' | 'reverse' | 'both', Direction> = { forward: 'in', reverse: 'out', both: 'both' };
const USE_KIND: Record<string, string> = { references: 'reference', inherits: 'subtype', implements: 'implementation', calls: 'construction or call' };

export const typeTraceVerb = defineVerb({
  name: 'type_trace',
  description: 'Where a type is used across files (references, subclasses, implementations, construction), grouped by file.',
  input: Type.Object({
    agent_id: AgentId,
    target: Type.String({ minLength: 1, description: 'Type id or name' }),
    direction: StringEnum(['forward', 'reverse', 'both'] as const, { default: 'forward', description: 'forward: its uses; reverse: what it builds on' }),
    max_hops: Type.Integer({ minimum: 1, maximum: 8, default: 4 }),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    group_by_file: Type.Boolean({ default: true }),
    min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'Skip edges resolved below this confidence' }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    truncated: Type.Optional(Type.Boolean()),
    omitted: Type.Optional(Type.Number()),
    direction: Type.String(),
    total_uses: Type.Number(),
    direct_uses: Type.Number(),
    files_count: Type.Number(),
    by_use: Type.Object({}),
    resolved_from: Type.Optional(Type.Object({ text: Type.String(), via: Type.String(), alternatives: Type.Optional(Type.Array(Type.Unknown())) })),
    target: NodeRefSchema,
  }),
  effect: 'read',
  stages: ['plan', 'review'],
  next: 'view',
  guide: [
    'The target resolves to a class, interface or type first (any node otherwise). Its members count as the type: a call to `Foo.bar` is a use of `Foo`.',
    '`forward` walks references, inheritance, implementation and calls *into* the type, transitively up to max_hops (a subclass\'s uses are uses through it); `reverse` walks what the type and its members reference and inherit; `both` does both. Each use names the relation that reached it, the resolution `confidence` of that edge and its path from the type; `min_confidence` keeps weaker edges out of the walk.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { engine, g } = await openGraph(call);
    let target: ResolvedNode;
    const exact = g.get(args.target);
    try {
      // An exact id is the target whatever its kind; a name resolves to a type first.
      target = exact ? { node: exact, index: g.indexOf(exact.id) } : await resolveNodeArg(engine, args.target, 'target', ['class', 'interface', 'type']);
    } catch (error) {
      if (!(error instanceof M1ndError) || error.code !== ErrorCodes.GRAPH_NODE_NOT_FOUND) throw error;
      target = await resolveNodeArg(engine, args.target, 'target');
    }
    const seeds: Seed[] = [{ index: target.index, signal: 1 }];
    const members = new Set<number>([target.index]);
    g.forEachOut(target.index, (t, _w, rel) => {
      if (rel === CONTAINS && !members.has(t)) {
        members.add(t);
        seeds.push({ index: t, signal: 0.95 });
      }
    });
    const p = propagate(g, seeds, {
      direction: WALK[args.direction],
      relations: TYPE_USAGE_PROFILE,
      decay: 0.9,
      threshold: 0.01,
      maxDepth: args.max_hops,
      maxVisits: 20_000,
      edgeFactor: confidenceFilter(g, args.min_confidence),
    });
    const uses: { k: number; file: string }[] = [];
    for (let k = 0; k < p.count; k++) {
      const v = p.order[k];
      if (members.has(v)) continue;
      uses.push({ k, file: g.node(v)!.path });
    }
    const counts: Record<string, number> = {};
    for (const u of uses) {
      const rel = RELATIONS[g.edgeRelation[p.parentEdge[u.k]]];
      const kind = USE_KIND[rel] ?? rel;
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    const entry = (k: number) => {
      const v = p.order[k];
      const hops = pathTo(p, v);
      const rel = RELATIONS[g.edgeRelation[p.parentEdge[k]]];
      return { ...nodeRef(g.node(v)!), hops: p.depth[k], use: USE_KIND[rel] ?? rel, confidence: edgeConfidence(g, p.parentEdge[k]), via: pathLine(g, hops) };
    };
    const kept = uses.slice(0, args.top_k);
    const files = new Map<string, number>();
    for (const u of uses) files.set(u.file, (files.get(u.file) ?? 0) + 1);
    let body: Record<string, unknown>;
    if (args.group_by_file) {
      const grouped = new Map<string, ReturnType<typeof entry>[]>();
      for (const u of kept) {
        let list = grouped.get(u.file);
        if (!list) grouped.set(u.file, (list = []));
        list.push(entry(u.k));
      }
      body = {
        files: [...grouped]
          .map(([path, nodes]) => ({ path, uses: files.get(path)!, nodes }))
          .sort((a, b) => b.uses - a.uses || (a.path < b.path ? -1 : 1)),
      };
    } else body = { uses: kept.map((u) => entry(u.k)) };
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: [target.node, ...kept.map((u) => g.node(p.order[u.k])!)], query: { subject: target.node.id, results: uses.length, elapsedMs } });
    return {
      target: nodeRef(target.node),
      ...(target.resolvedFrom ? { resolved_from: target.resolvedFrom } : {}),
      direction: args.direction,
      total_uses: uses.length,
      direct_uses: uses.filter((u) => p.depth[u.k] === 1).length,
      files_count: files.size,
      by_use: counts,
      ...body,
      ...(uses.length > kept.length ? { omitted: uses.length - kept.length } : {}),
      ...(p.truncated ? { truncated: true } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});
