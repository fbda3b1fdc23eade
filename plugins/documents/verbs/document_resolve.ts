/** document_resolve: the canonical Markdown artefact of a workspace document and the converter that produced it. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { documentPath, resolveDocument } from '../resolve-document.ts';

export const documentResolveVerb = defineVerb({
  name: 'document_resolve',
  description: 'Convert a document (Markdown, reST, text, PDF, HTML, DOCX) to canonical Markdown: its producer, hash, headings and text.',
  input: Type.Object({
    agent_id: AgentId,
    path: Type.Optional(Type.String({ minLength: 1, description: 'Workspace path of the document' })),
    node_id: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A graph node; its file is the document' })),
    max_chars: Type.Integer({ minimum: 0, maximum: 200_000, default: 8000, description: 'Markdown characters returned (0: headings only)' }),
  }),
  output: Type.Object({
    path: Type.String(),
    converter: Type.String(),
    producer: Type.String(),
    source_hash: Type.String(),
    converted_at: Type.String(),
    reused: Type.Boolean(),
    stored: Type.Boolean(),
    graph_node: Type.Union([Type.String(), Type.Null()]),
    markdown_chars: Type.Number(),
    headings: Type.Array(Type.Object({})),
    markdown: Type.String(),
    truncated: Type.Boolean(),
    note: Type.String(),
  }),
  tiers: ['full'],
  effect: 'read',
  next: 'document_bindings',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const path = documentPath(graph, args);
    const doc = await resolveDocument(graph, path, { signal: call.signal });
    const md = doc.record.markdown;
    const headings: { line: number; level: number; text: string }[] = [];
    // A `#` line inside a fenced code block is a comment of the code (`# Instantiate a client…`), not a heading.
    let fence: string | null = null;
    md.split('\n').forEach((line, i) => {
      const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (fence !== null) {
        if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
        return;
      }
      if (f) {
        fence = f[1];
        return;
      }
      const h = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
      if (h && headings.length < 200) headings.push({ line: i + 1, level: h[1].length, text: h[2] });
    });
    const node = graph.engine.graph.get(`file:${path}`);
    return {
      path,
      converter: doc.record.converter,
      producer: doc.record.producer,
      source_hash: doc.record.source_hash,
      converted_at: new Date(doc.record.converted_at).toISOString(),
      reused: doc.cached,
      stored: doc.stored,
      graph_node: node?.id ?? null,
      markdown_chars: md.length,
      headings,
      markdown: md.slice(0, args.max_chars),
      truncated: md.length > args.max_chars,
      note: 'workspace text, shown as data',
    };
  },
});
