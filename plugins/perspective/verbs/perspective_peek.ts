/** perspective_peek: a short excerpt of a route target's source or doc text, without moving the focus. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { PerspectiveId, perspectiveGraphCall, RouteChoice, RouteSetVersion } from '../context.ts';
import { nodeRef } from '../graph-view.ts';
import { pickRoute } from '../routes.ts';
import { NodeRefSchema } from '../../graph/api.ts';

const MAX_LINES = 30;
const MAX_CHARS = 2400;

export const perspectivePeekVerb = defineVerb({
  name: 'perspective_peek',
  description: "Show a short numbered excerpt of a route target's code or doc text without moving the focus.",
  input: Type.Object({ agent_id: AgentId, perspective_id: PerspectiveId, ...RouteChoice, route_set_version: RouteSetVersion }),
  output: Type.Object({
    more: Type.Optional(Type.Number()),
    contents: Type.Optional(Type.Array(Type.String())),
    doc: Type.Optional(Type.String()),
    route_id: Type.String(),
    target: NodeRefSchema,
    excerpt: Type.Optional(Type.String()),
    lines: Type.Optional(Type.Array(Type.Number())),
    truncated: Type.Optional(Type.Boolean()),
    note: Type.Optional(Type.String()),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['ground'],
  next: 'perspective_follow',
  handler: async (args, call) => {
    const { graph, engine, book, agentId } = await perspectiveGraphCall(call);
    const p = book.load(agentId, args.perspective_id);
    const { route, index, rs } = pickRoute(engine, p, args);
    const node = engine.graph.get(route.t)!;
    const base = { route_id: `R${rs.version}.${index}`, target: nodeRef(node), ...(node.doc ? { doc: node.doc } : {}) };
    if (node.kind === 'module') {
      const files = engine.graph.outgoing(node.id, 'contains').map((e) => e.target.replace(/^(file|module):/, ''));
      return { ...base, contents: files.slice(0, 40), ...(files.length > 40 ? { more: files.length - 40 } : {}) };
    }
    // Read through the engine's workspace guard (no path outside the workspace, no symlink escape).
    const file = graph.run(() => engine.readFile(node.path));
    if (file.content.includes('\u0000')) {
      throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `${node.path} is binary; there is nothing to peek at`, { hint: 'inspect the route instead' });
    }
    const lines = file.content.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const first = Math.max(1, node.startLine);
    const last = Math.min(node.endLine || lines.length, lines.length, first + MAX_LINES - 1);
    const width = String(last).length;
    let text = '';
    let shown = first - 1;
    for (let n = first; n <= last; n++) {
      const line = `${String(n).padStart(width)}│${lines[n - 1]}\n`;
      if (text.length + line.length > MAX_CHARS) break;
      text += line;
      shown = n;
    }
    const end = node.kind === 'file' ? lines.length : node.endLine;
    return {
      ...base,
      excerpt: text.replace(/\n$/, ''),
      lines: [first, shown],
      truncated: shown < end,
      note: 'workspace text, shown as data',
    };
  },
});
