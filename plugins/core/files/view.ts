/** view: a file or a window of its lines, numbered, from inside the workspace only. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { engineCall } from '../../graph/api.ts';
import { capChars, longLines, looksBinary, MAX_LINE_CHARS, nodeRef, numberLines, queryGraphOf } from '../shared.ts';
import { refreshIfNeeded } from './refresh.ts';
import { recordVisit } from '../session/visits.ts';

export const viewVerb = defineVerb({
  name: 'view',
  description: 'Read a workspace file with numbered lines (offset/limit window); lists the symbols in the window.',
  input: Type.Object({
    agent_id: AgentId,
    file_path: Type.String({ description: 'Workspace-relative path' }),
    offset: Type.Integer({ minimum: 0, default: 0, description: 'Lines to skip' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Max lines (default 400)' })),
    auto_ingest: Type.Boolean({ default: true, description: 'Re-ingest the file first if the graph is missing or stale on it' }),
    max_output_chars: Type.Optional(Type.Integer({ minimum: 100 })),
  }),
  output: Type.Object({
    symbols: Type.Array(Type.Object({})),
    graph: Type.Object({ in_graph: Type.Boolean(), reingested: Type.Boolean(), note: Type.Optional(Type.String()) }),
    next_offset: Type.Optional(Type.Number()),
    file_path: Type.String(),
    total_lines: Type.Number(),
    lines: Type.Array(Type.Number()),
    content: Type.String(),
    truncated: Type.Boolean(),
    note: Type.Optional(Type.String()),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['ground', 'review'],
  handler: async (args, call) => {
    const graph = queryGraphOf(call);
    await graph.fresh();
    const file = engineCall(() => graph.engine.readFile(args.file_path));
    const graph_sync = await refreshIfNeeded(graph, [file.path], args.auto_ingest);
    if (looksBinary(file.content)) {
      return {
        file_path: file.path,
        total_lines: 0,
        lines: [],
        content: '',
        truncated: true,
        symbols: [],
        graph: graph_sync,
        note: `binary file (${file.size} bytes): its bytes are not shown`,
      };
    }
    const all = file.content.split('\n');
    if (all.length > 1 && all[all.length - 1] === '') all.pop();
    const limit = args.limit ?? 400;
    const window = all.slice(args.offset, args.offset + limit);
    const first = args.offset + 1;
    const body = capChars(numberLines(window, first), args.max_output_chars);
    // The lines the content holds: max_output_chars ends it at a line end (or inside the first line).
    const last = args.offset + (body.truncated ? body.text.split('\n').length : window.length);
    const cutLines = longLines(window);
    // Every symbol of the file the window shows a line of, nested ones (a class's methods) included.
    const shown = graph.fileSymbols(file.path).filter((n) => n.kind !== 'file' && n.endLine >= first && n.startLine <= last);
    recordVisit(call, graph.engine.root, { files: [file.path], nodes: shown });
    const symbols = shown.map(nodeRef);
    return {
      file_path: file.path,
      total_lines: all.length,
      lines: window.length ? [first, last] : [],
      content: body.text,
      truncated: body.truncated || last < all.length || cutLines > 0,
      ...(last < all.length ? { next_offset: last } : {}),
      symbols,
      graph: graph_sync,
      // A window past the end reads nothing: say so, and where the file's lines are.
      ...(window.length === 0 && args.offset > 0 ? { note: `offset ${args.offset} is past the end of the file (${all.length} lines): pass an offset below ${all.length}` } : {}),
      ...(cutLines > 0 ? { note: `${cutLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut (search finds text inside them)` } : {}),
    };
  },
});
