/**
 * Evidence, in a file's own text, that a JavaScript- or Go-style `x.verb('/path', …, h)` call registers
 * a route rather than calling some other object's method of the same name (`cache.put('/x', v)`,
 * `map.get('/a', fallback)`, `store.delete('/k', opts)`): without types the two look alike.
 *
 * A call is a registration when its receiver is a router or app (made by a router or app construction
 * in the file: `express()`, `express.Router()`, `new Hono()`, `fastify()`, `chi.NewRouter()`; a
 * parameter typed as one: `app: Express`, `r chi.Router`; or named as one: `app`, `router`,
 * `apiRouter`), or its handler is a function the file writes (among the arguments), declares
 * (`function getOrder`, `const getOrder = (req, res) => …`, Go's `func getOrder`) or imports
 * (`import { getOrder } from './orders'`, `const users = require('./users')` for `users.list`).
 * route-handler-args.ts reads the handler argument; http-routes.ts asks both.
 *
 * Each set of names is read once per file, on the first question, with patterns that scan the text
 * about once (a name's start is checked before the name is read on: runs of identifiers stay linear).
 */
import { firstMatches, routerTest } from './http-routes.ts';
import { FUNCTION_DECL } from './route-handler-args.ts';

/** Receivers named as a router or app (a parameter `app`, a module's `router`, `usersRouter`). */
const JS_ROUTER_NAME = /^(?:app|router|server|fastify|[A-Za-z_$][\w$]*(?:Router|App|Server))$/;
/** Go's usual names for a router, mux, engine or group (`r`, `e`, `g`, `mux`, `v1`, `apiGroup`). */
const GO_ROUTER_NAME = /^(?:r|e|g|app|api|mux|router|server|srv|v\d+|[A-Za-z_]\w*(?:Router|App|Mux|Group|Server))$/;
/** Router and app constructors of the JavaScript frameworks (`express()`, `express.Router()`, `new Hono()`, `new KoaRouter()`, `Fastify()`). */
const JS_CTOR = String.raw`(?:express|Router|[\w$]*Router|fastify|Fastify|Hono|OpenAPIHono|Elysia|polka|createServer|createApp|createRouter)`;
/** A word a construction or a router type needs (the patterns run only on a text holding one). */
const JS_CTOR_WORD = /express|Router|fastify|Hono|Elysia|polka|create(?:Server|App|Router)|restify/i;
const JS_TYPE_WORD = /Express|Application|Router|FastifyInstance|Hono|Elysia|Polka/;
/** `name = <construction>(`: a constructor, maybe namespaced or off a `require(…)`, or a framework module called (`require('fastify')()`). */
const JS_MADE = new RegExp(
  String.raw`(?<![\w$.])([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?(?:new\s+)?(?:(?:[\w$]+\s*\.\s*)*${JS_CTOR}|require\(\s*['"][^'"\n]{1,200}['"]\s*\)\s*\.\s*${JS_CTOR}|require\(\s*['"](?:express|fastify|polka|restify|koa-router|@koa\/router)['"]\s*\))\s*\(`,
  'g',
);
/** A parameter or binding typed as a router or app: `app: Express`, `router: express.Router`, `fastify: FastifyInstance`. */
const JS_TYPED = /(?<![\w$.])([A-Za-z_$][\w$]*)\s*\??:\s*(?:[\w$]+\.)*(?:Express|Application|Router|IRouter|[\w$]+Router|FastifyInstance|Hono|OpenAPIHono|Elysia|Polka)\b/g;
/** Go: a router, mux, engine or group made here (`r := chi.NewRouter()`, `e := echo.New()`, `api := r.Group("/api")`). */
const GO_MADE = /(?<![\w.])([A-Za-z_]\w*)\s*:?=\s*&?(?:gin\.(?:Default|New)|chi\.(?:NewRouter|NewMux)|echo\.New|fiber\.New|mux\.NewRouter|http\.NewServeMux|httprouter\.New|[A-Za-z_]\w*\.(?:Group|Route|Party))\s*\(/g;
/** Go: a parameter or field typed as one (`r chi.Router`, `e *echo.Echo`, `router *gin.Engine`, `app *fiber.App`). */
const GO_TYPED = /(?<![\w.])([A-Za-z_]\w*)[ \t]+\*?[A-Za-z_]\w*\.(?:Engine|RouterGroup|IRouter|IRoutes|Router|Mux|ServeMux|Echo|Group|App)\b/g;

/**
 * A name bound to a function written there: `const getOrder = (req, res) => …`, `= async function`,
 * `= req => …`, or one wrapped (`= asyncHandler(async (req, res) => …)`); a type named between
 * (`const h: RequestHandler<P> =`).
 */
const FUNCTION_BINDING = /(?<![\w$.])([A-Za-z_$][\w$]*)\s*(?::\s*[\w$.]+(?:<[^<>=\n]{0,80}>)?\s*)?=\s*(?:async\s*)?(?:function\b|\([^()\n]{0,200}\)\s*(?::\s*[\w$.]+(?:<[^<>=\n]{0,80}>)?\s*)?=>|[A-Za-z_$][\w$]*\s*=>|[\w$.]+\(\s*(?:async\s*)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>))/g;
/**
 * The end of an import (`… from './orders'`) or a `require` binding (`= require(`, `= await import(`):
 * found first, the clause before it is read back a bounded way (a clause looked for after each
 * `import` or `const {` scanned a window for each, 0.3 s for 1 MB of them).
 */
const IMPORT_END = /\bfrom\s*['"]|=\s*(?:await\s+import|require)\s*\(/g;
/** Characters an import clause is read back at most. */
const MAX_CLAUSE = 300;

/** Per file: whether the receiver of a registration-like call is a router or app (the names read once, on the first question). */
export function routerReceivers(text: string, go: boolean): (name: string) => boolean {
  let names: Set<string> | undefined;
  const made = go ? undefined : routerTest(text);
  return (name) => {
    if ((go ? GO_ROUTER_NAME : JS_ROUTER_NAME).test(name) || made?.(name)) return true;
    if (!names) {
      names = new Set();
      // Each pattern read only when a word it needs is in the text (most files hold none).
      if (go || JS_CTOR_WORD.test(text)) for (const m of firstMatches(text, go ? GO_MADE : JS_MADE)) names.add(m[1]);
      if (go || JS_TYPE_WORD.test(text)) for (const m of firstMatches(text, go ? GO_TYPED : JS_TYPED)) names.add(m[1]);
    }
    return names.has(name);
  };
}

/** Per file: whether a name is a function the file declares, or a name it imports (a handler, or a module of handlers). */
export function functionNames(text: string, go: boolean): (name: string) => boolean {
  let names: Set<string> | undefined;
  return (name) => {
    if (!names) {
      names = new Set(Array.from(firstMatches(text, FUNCTION_DECL), (m) => m[1]));
      if (!go) {
        if (/=>|\bfunction\b/.test(text)) for (const m of firstMatches(text, FUNCTION_BINDING)) names.add(m[1]);
        if (/\b(?:from|require|import)\b/.test(text)) for (const m of firstMatches(text, IMPORT_END)) importedNames(importClause(text, m.index, m[0].startsWith('from')), names);
      }
    }
    return names.has(name);
  };
}

/**
 * The clause an import or `require` binding ending at `at` binds names with: `a, { b as c }, * as ns` of
 * `import a, { b as c }, * as ns from …`, `x` or `{ a, b: c }` of `const … = require(…)`; '' for none.
 */
function importClause(text: string, at: number, es: boolean): string {
  const before = text.slice(Math.max(0, at - MAX_CLAUSE), at);
  if (es) {
    const k = before.lastIndexOf('import');
    const clause = k < 0 ? '' : before.slice(k + 'import'.length);
    return /^\s+(?:type\s+)?[\w$*{},\s]+$/.test(clause) && !/[\w$]/.test(before[k - 1] ?? '') ? clause : '';
  }
  const m = /(?:^|[^\w$.])(?:const|let|var)\s+([A-Za-z_$][\w$]*|\{[^{}]*\})\s*$/.exec(before);
  return m?.[1] ?? '';
}

/** The local names an import clause or a `require` binding binds (`a, { b as c, d: e }, * as ns` → a, c, e, ns). */
function importedNames(clause: string, into: Set<string>): void {
  for (const part of clause.replace(/[{}]/g, ',').split(',')) {
    const local = part.trim().split(/\s+as\s+|\s*:\s*/).pop()!.replace(/^\*\s*/, '').replace(/^type\s+/, '').trim();
    if (/^[A-Za-z_$][\w$]*$/.test(local)) into.add(local);
  }
}
