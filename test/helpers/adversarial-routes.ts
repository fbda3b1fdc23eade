/** Source files written to make the reading of HTTP routes (plugins/graph/http-routes.ts, http-mounts.ts) slow. */

/** `unit` repeated to `bytes` characters. */
export const fill = (unit: string, bytes: number) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

/** Files each of which made one reading scan the rest of the file once per match (128 KB: 0.1-3.6 s each). */
export const ADVERSARIAL: Record<string, string> = {
  // A NestJS decorator on no method: each looked for its declaration from the file's first line.
  'nest.ts': `@Controller('x')\n${fill("@Get(':id')\n", 128 << 10)}`,
  'Spring.java': fill('@GetMapping("/x")\n', 128 << 10),
  // Route and tool decorators with no def after them: each searched the rest of the file.
  'routes.py': fill('@app.route("/x")\n@mcp.tool("t")\n', 128 << 10),
  // A router made with a `(` never closed, a `from … import (` never closed.
  'routers.py': `app.include_router(r, prefix="/x")\n${fill('r = APIRouter(\nfrom . import (\n', 128 << 10)}`,
  // Mounts and client calls: each asked whether the file makes the name a router, reading it all.
  'mounts.ts': fill("app.use('/a', r)\napi.get('/x', h)\n", 128 << 10),
  'fastify.ts': `const o = { prefix: '/x' };\n${fill('app.register(x, {', 128 << 10)}\n`,
};
