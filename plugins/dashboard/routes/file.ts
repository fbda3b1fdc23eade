/** GET /api/file?path=&line=&context=: lines of a workspace file around a line, through the workspace checker. */
import { ErrorCodes, httpError, type HttpRouteRequest, type HttpRouteResponse } from '../../../core/index.ts';
import { intParam, json, textParam, type DashboardContext } from '../context.ts';

/** Largest file shown (bigger ones are refused: the view is for reading code, not dumps). */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINES = 400;

const LANGUAGES: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  py: 'python', rs: 'rust', go: 'go', java: 'java', kt: 'kotlin', rb: 'ruby', php: 'php', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp',
  swift: 'swift', scala: 'scala', lua: 'lua', sh: 'shell', bash: 'shell', md: 'markdown', json: 'json', yaml: 'yaml', yml: 'yaml', toml: 'toml', html: 'html', css: 'css', sql: 'sql',
};

export function file(ctx: DashboardContext, req: HttpRouteRequest): HttpRouteResponse {
  const userPath = textParam(req.query, 'path', 1000);
  if (!userPath) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, 'path is empty', 'send ?path=<a workspace-relative path>');
  const engine = ctx.graph.engine;
  // The one workspace checker: refuses `..`, absolute paths outside the workspace and symlink escapes.
  const resolved = ctx.graph.run(() => engine.resolvePath(userPath));
  const content = ctx.graph.run(() => engine.readFile(resolved.relative));
  if (content.size > MAX_FILE_BYTES) throw httpError(413, ErrorCodes.HTTP_BAD_REQUEST, `${resolved.relative} is ${content.size} bytes, over the ${MAX_FILE_BYTES}-byte view limit`, 'open it in an editor');
  const all = content.content.split(/\r?\n/);
  // A final newline ends the last line; it does not start another.
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  const line = intParam(req.query, 'line', 1, 1, Math.max(1, all.length));
  const context = intParam(req.query, 'context', 40, 0, MAX_LINES / 2);
  const start = Math.max(1, line - context);
  const end = Math.min(all.length, line + context);
  const ext = resolved.relative.slice(resolved.relative.lastIndexOf('.') + 1).toLowerCase();
  return json({ path: resolved.relative, start_line: start, lines: all.slice(start - 1, end), total_lines: all.length, language: LANGUAGES[ext] ?? 'text' });
}
