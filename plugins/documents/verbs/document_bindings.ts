/** document_bindings: the code a document names (paths, symbols, commands), resolved in the graph with scores. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { computeBindings } from '../bindings.ts';
import { splitUnindexed } from '../code-words.ts';
import { isStored } from '../document-book.ts';
import { recordBaseline } from '../drift.ts';
import { documentNodes } from '../graph-nodes.ts';
import { documentPath, resolveDocument } from '../resolve-document.ts';

/** Unindexed names listed at most. */
const MAX_UNINDEXED = 50;

export const documentBindingsVerb = defineVerb({
  name: 'document_bindings',
  description: 'Links between a document and the code it names (paths, symbols, commands), resolved in the graph and scored; unresolved and ambiguous ones flagged.',
  input: Type.Object({
    agent_id: AgentId,
    path: Type.Optional(Type.String({ minLength: 1, description: 'Workspace path of the document' })),
    node_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A graph node; its file is the document' })),
    top_k: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
    persist: Type.Boolean({ default: false, description: 'Also store the artefact and baseline, and add a converted document to the graph (a write)' }),
  }),
  output: Type.Object({
    path: Type.String(),
    producer: Type.String(),
    total: Type.Number(),
    bound: Type.Number(),
    ambiguous: Type.Number(),
    missing: Type.Number(),
    unindexed: Type.Array(Type.String(), { description: 'Names the code has but the graph does not index (parameters, attributes, outside packages): not missing' }),
    baseline_at: Type.Union([Type.String(), Type.Null()]),
    bindings: Type.Array(Type.Object({})),
    truncated: Type.Boolean(),
    in_graph: Type.Optional(Type.Boolean()),
  }),
  tiers: ['full'],
  // The baseline is kept in memory by a read; storing it is a write (refused on a read-only server).
  effect: (args) => (args.persist ? 'write' : 'read'),
  next: 'document_drift',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const path = documentPath(graph, args);
    const doc = await resolveDocument(graph, path, { signal: call.signal, persist: args.persist });
    // Names the code has but the graph does not index (a parameter, an attribute, an outside package) are not missing.
    const { bindings, unindexed } = await splitUnindexed(graph, await computeBindings(graph, path, doc.record.markdown));
    const baseline = await recordBaseline(graph, doc.record, bindings, doc.mtimeMs, args.persist);
    // A converted document (not parsed by the graph's ingest) enters the graph as document + section nodes.
    const graphed = args.persist && doc.record.converter !== 'markdown' && graph.engine.graph.nodeCount > 0;
    if (graphed) await documentNodes(graph).put(doc.record);
    const count = (status: string) => bindings.filter((b) => b.status === status).length;
    return {
      path,
      producer: doc.record.producer,
      total: bindings.length,
      bound: count('bound'),
      ambiguous: count('ambiguous'),
      missing: count('missing'),
      unindexed: unindexed.slice(0, MAX_UNINDEXED).map((b) => b.text),
      baseline_at: new Date(baseline).toISOString(),
      stored: args.persist ? isStored(graph, doc.record) : false,
      bindings: bindings.slice(0, args.top_k),
      truncated: bindings.length > args.top_k,
      ...(graphed ? { in_graph: true } : {}),
    };
  },
});
