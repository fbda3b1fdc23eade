/** lock_create: pins a region of the graph and captures its baseline; reports other agents' overlapping locks. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { snapshot } from '../baseline.ts';
import { heldRegion, LockBook, type LockRecord } from '../book.ts';
import { graphService } from '../graph-view.ts';
import { captureRegion, DEFAULT_RADIUS, pathThrough, SCOPES, type RegionSpec } from '../region.ts';
import type { StateService } from '../../state/api.ts';

/** Query matches added as seeds of a query_neighborhood lock. */
const QUERY_SEEDS = 5;

export const lockCreateVerb = defineVerb({
  name: 'lock_create',
  description: "Pin a graph region (node, subgraph, query neighbourhood or path) and capture its baseline, to diff later. Advisory: blocks no write; shows other agents' overlapping locks.",
  input: Type.Object({
    agent_id: AgentId,
    scope: StringEnum(SCOPES),
    root_nodes: Type.Array(Type.String({ minLength: 1 }), { description: 'Node ids (or paths/names)' }),
    radius: Type.Optional(Type.Integer({ minimum: 0, maximum: 8, description: 'Hops around the roots (subgraph: 2, query_neighborhood: 1)' })),
    query: Type.Optional(Type.String({ minLength: 1, description: 'query_neighborhood: its best matches join the roots' })),
    path_nodes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'path: the nodes in order (default: shortest path through the roots)' })),
    exclusive: Type.Optional(Type.Boolean({ description: 'Hold the region: refused if another exclusive lock (any server) holds one of its nodes' })),
  }),
  output: Type.Object({
    advisory: Type.Boolean(),
    warning: Type.Optional(Type.String()),
    overlaps: Type.Array(Type.Object({})),
    exclusive: Type.Optional(Type.Boolean()),
    region: Type.Object({ truncated: Type.Optional(Type.Boolean()), note: Type.Optional(Type.String()), nodes: Type.Number(), edges: Type.Number(), files: Type.Array(Type.Unknown()), sample: Type.Array(Type.Unknown()) }),
    baseline_generation: Type.Number(),
    strategy: Type.String(),
    path: Type.Optional(Type.Array(Type.String())),
    radius: Type.Optional(Type.Number()),
    lock_id: Type.String(),
    scope: Type.String(),
    seeds: Type.Array(Type.String()),
  }),
  tiers: ['full'],
  effect: 'write',
  stages: ['edit', 'plan'],
  next: 'lock_diff',
  guide:
    'A lock is an advisory baseline of a region, not a mutex: it blocks nothing, it lets you (and others) see what changed. ' +
    'Scopes: node (the roots), subgraph (roots plus `radius` hops: callees, callers, importers, contents — never up to a parent), query_neighborhood (roots plus the best matches of `query`, then `radius` hops), path (path_nodes, or the shortest path through ≥2 roots). ' +
    'The baseline keeps node ids, kinds, names, line ranges, a hash of each node’s own text (children in the region excluded), the edges between region nodes with weights, and a hash per file. ' +
    '`exclusive: true` makes it a hold: no other exclusive lock may include any of its nodes, on any server sharing the store (a team store spans machines); a conflicting one is refused with STATE_CONFLICT naming the holder; lock_rebase moves the holds with the region (nodes another lock holds are listed as not_held). It still blocks no write. ' +
    'lock_diff shows what changed since; lock_rebase accepts it; lock_watch sets when it is re-checked automatically; lock_release drops it. Locks are stored in the workspace store: every agent and server process sees them, and lock_create reports overlaps with other agents’ locks.',
  handler: async (args, call) => {
    const graph = graphService(call);
    const engine = await graph.requireGraph();
    const refuse = (param: string, why: string) => {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `${param} ${why}`, { hint: `drop ${param}, or pick the scope it belongs to` });
    };
    if (args.radius !== undefined && DEFAULT_RADIUS[args.scope] === undefined) refuse('radius', `applies to scopes subgraph and query_neighborhood, not "${args.scope}"`);
    if (args.query !== undefined && args.scope !== 'query_neighborhood') refuse('query', `applies to scope query_neighborhood, not "${args.scope}"`);
    if (args.path_nodes !== undefined && args.scope !== 'path') refuse('path_nodes', `applies to scope path, not "${args.scope}"`);

    const roots = args.root_nodes.map((r) => graph.node(r).id);
    const spec: RegionSpec = { scope: args.scope, seeds: [...new Set(roots)] };
    if (args.scope === 'node' || args.scope === 'subgraph') {
      if (roots.length === 0) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `scope "${args.scope}" needs at least one node in root_nodes`, { hint: 'find node ids with seek' });
    }
    if (args.scope === 'subgraph' || args.scope === 'query_neighborhood') spec.radius = args.radius ?? DEFAULT_RADIUS[args.scope];
    if (args.scope === 'query_neighborhood') {
      if (args.query === undefined && roots.length === 0) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'scope "query_neighborhood" needs a query or root_nodes', { hint: 'pass query: "what the region is about"' });
      }
      if (args.query !== undefined) {
        spec.query = args.query;
        await engine.prepareSeek();
        const hits = engine.seek(args.query, { topK: QUERY_SEEDS, minScore: 0.2 }).results.map((h) => h.id);
        spec.seeds = [...new Set([...spec.seeds, ...hits])];
        if (spec.seeds.length === 0) throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `nothing in the graph matches "${args.query}"`, { hint: 'rephrase the query, or pass root_nodes' });
      }
    }
    if (args.scope === 'path') {
      if (args.path_nodes !== undefined) {
        if (args.path_nodes.length === 0) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'path_nodes is empty', { hint: 'list the nodes of the path in order' });
        spec.path = args.path_nodes.map((r) => graph.node(r).id);
      } else if (roots.length >= 2) {
        spec.path = pathThrough(engine, roots);
      } else {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'scope "path" needs path_nodes, or at least two root_nodes to find the path between', { hint: 'pass path_nodes in order' });
      }
    }

    const book = new LockBook(call.service<StateService>('state').team);
    await book.checkRoom(call.agentId);
    const region = captureRegion(engine, spec);
    const baseline = await snapshot(engine, region.nodes, region.truncated);
    const lock: LockRecord = {
      lock_id: book.newId(),
      agent_id: call.agentId,
      spec,
      strategy: 'manual',
      region: heldRegion(baseline),
      checked_generation: engine.generation,
      events: [],
      created_at: Date.now(),
      ...(args.exclusive ? { exclusive: true } : {}),
    };
    if (lock.exclusive) await book.saveExclusive(lock, baseline);
    else await book.save(lock, baseline);
    // Other agents' locks as read by checkRoom a moment ago (not read again).
    const overlaps = await book.overlaps(call.agentId, region.nodes, lock.lock_id, book.latest);
    return {
      lock_id: lock.lock_id,
      scope: spec.scope,
      seeds: spec.seeds,
      ...(spec.radius !== undefined ? { radius: spec.radius } : {}),
      ...(spec.path ? { path: spec.path } : {}),
      region: {
        nodes: region.nodes.length,
        edges: Object.keys(baseline.edges).length,
        files: Object.keys(baseline.files).sort(),
        sample: region.nodes.slice(0, 20),
        ...(region.truncated ? { truncated: true, note: 'the region was cut at its node limit (nearest nodes kept)' } : {}),
      },
      baseline_generation: baseline.generation,
      strategy: lock.strategy,
      ...(lock.exclusive ? { exclusive: true } : {}),
      overlaps,
      ...(overlaps.length ? { warning: `${overlaps.length} lock${overlaps.length === 1 ? '' : 's'} of other agents cover part of this region` } : {}),
      advisory: !lock.exclusive,
    };
  },
});
