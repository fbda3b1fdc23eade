/** persist: store status, flush, named checkpoints and loading one back. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type, writeFileAtomic } from '../../../core/index.ts';
import { asHostError, engineCall } from '../../graph/api.ts';
import { graphOf } from '../shared.ts';

export const persistVerb = defineVerb({
  name: 'persist',
  description: 'The embedded store: status, save (flush; optional JSON export to path), checkpoint (named by path), load (a checkpoint).',
  input: Type.Object({
    agent_id: AgentId,
    action: StringEnum(['save', 'load', 'checkpoint', 'status'] as const),
    format: StringEnum(['json', 'bin'] as const, { default: 'json', description: 'Export format for save with path (json only)' }),
    path: Type.Optional(Type.String({ description: 'save: export file in the workspace; checkpoint/load: checkpoint name' })),
  }),
  output: Type.Object({
    path: Type.Optional(Type.String()),
    generation: Type.Optional(Type.Number()),
    ingestedAt: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    root: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    files: Type.Optional(Type.Number()),
    extractions: Type.Optional(Type.Number()),
    gitCommits: Type.Optional(Type.Number()),
    dbBytes: Type.Optional(Type.Number()),
    walBytes: Type.Optional(Type.Number()),
    checkpoints: Type.Optional(Type.Array(Type.Object({}))),
    memoryNamespaces: Type.Optional(Type.Array(Type.Object({}))),
    loadedGeneration: Type.Optional(Type.Number()),
    nodes: Type.Optional(Type.Number()),
    edges: Type.Optional(Type.Number()),
    stale: Type.Optional(Type.Boolean()),
    searchCacheChars: Type.Optional(Type.Number()),
    lexical: Type.Optional(Type.Object({ tokens: Type.Number(), postings: Type.Number(), stalePostings: Type.Number(), documents: Type.Number() })),
    action: Type.String(),
    exported: Type.Optional(Type.Object({ path: Type.String(), format: Type.String(), nodes: Type.Number(), edges: Type.Number() })),
    loaded: Type.Optional(Type.Boolean()),
    elapsedMs: Type.Optional(Type.Number()),
  }),
  tiers: ['essential'],
  // load replaces the current graph; save to a path overwrites that file.
  effect: (a) => (a.action === 'status' ? 'read' : a.action === 'load' || (a.action === 'save' && a.path !== undefined) ? 'destructive' : 'write'),
  maxEffect: 'destructive',
  stages: ['operate'],
  guide:
    'Every ingest already commits the graph to `.m1nd/m1nd.db` (SQLite, WAL) in one transaction, so `save` only folds the WAL in; with `path` it also writes a JSON export (nodes and edges) to that workspace file, atomically. `checkpoint` stores the current files state and learned weights under a name (`path`); `load` makes a checkpoint current again (a new generation) — `drift` compares against it.',
  handler: async (args, call) => {
    const graph = graphOf(call);
    const engine = graph.engine;
    try {
      switch (args.action) {
        case 'status':
          return { action: 'status', ...engine.status() };
        case 'save': {
          const status = engine.save();
          if (args.path === undefined) return { action: 'save', ...status };
          if (args.format === 'bin') {
            throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, 'bin exports are not supported: the store itself is SQLite', {
              hint: `use format "json", or copy ${status.path}`,
            });
          }
          const target = engineCall(() => engine.resolvePath(args.path!));
          const g = engine.graph;
          const nodes = [...g.nodes()].map(([, n]) => n);
          const edges = [];
          for (const [i] of g.nodes()) for (const e of g.outgoing(g.node(i)!.id)) edges.push(e);
          writeFileAtomic(target.absolute, JSON.stringify({ generation: engine.generation, root: engine.root, nodes, edges }));
          return { action: 'save', ...status, exported: { path: target.relative, format: 'json', nodes: nodes.length, edges: edges.length } };
        }
        case 'checkpoint': {
          const name = args.path ?? `checkpoint-${new Date().toISOString().replace(/[:.]/g, '-')}`;
          const checkpoint = engine.checkpoint(name);
          // The learned weights go with it, so drift can diff them against this moment.
          graph.learned.saveCheckpoint(name);
          return { action: 'checkpoint', checkpoint };
        }
        case 'load': {
          if (!args.path) {
            const names = engine.status().checkpoints.map((c) => c.name);
            throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'load needs path: the checkpoint name', { hint: `one of: ${names.join(', ') || '(none yet: persist {"action":"checkpoint"})'}` });
          }
          const opened = await engine.loadCheckpoint(args.path);
          return { action: 'load', checkpoint: args.path, ...opened };
        }
      }
    } catch (error) {
      throw asHostError(error);
    }
  },
});
