/**
 * HTTP routes in source text: the routes a file serves, read with patterns (no parse), for the runtime
 * overlay (a span's `http.route` → its handler) and federation (a request in one repository → the
 * handler another serves it with).
 *
 * Served: Express/Koa/Fastify/Hono-style `x.get('/orders/:id', getOrder)` (a handler argument
 * required: a function the file writes, declares or imports, or any name passed to a router or app the
 * file makes, types or names as one, route-evidence.ts; `axios.get('/x', { params })` and
 * `cache.put('/x', v)` serve nothing), Python route decorators
 * (`@app.get("/x")`, `@app.route("/x", methods=[…])`), Go `HandleFunc`/gin/chi/echo registrations
 * (`"GET /x"` patterns too; a `Group("/v1")`'s prefix joined, and its parent group's), Spring `@GetMapping`-style annotations under the class's
 * `@RequestMapping` prefix, NestJS `@Get(':id')`-style decorators under the class's `@Controller`
 * prefix, Django `path('users/<int:pk>/', views.detail)` / `re_path` entries. The URLs a file
 * requests are read by http-requests.ts.
 *
 * Prefixes a router is mounted under elsewhere (`app.use('/api', router)`, an `include`) are joined by
 * http-mounts.ts.
 *
 * The reading is linear in a file's length whatever it holds (a decorator with no `def` after it, a
 * `(` never closed, a run of `$`): no pattern scans the rest of the file once per match, and a file
 * gives at most MAX_ROUTES_PER_FILE registrations and requests (about 50 ms for 1 MB at worst).
 */
import { indexLines, lineAt, type LineIndex } from './engine/parsers/source-lines.ts';
import { blankComments } from './source-comments.ts';
import { handlerArgument, valueNames } from './route-handler-args.ts';
import { functionNames, routerReceivers } from './route-evidence.ts';

export interface RouteRegistration {
  /** Upper-case method, or null when the registration takes any method. */
  method: string | null;
  route: string;
  file: string;
  /** 1-based line of the registration (for a decorator or annotation: of the decorated function). */
  line: number;
  /** The handler identifier argument (last segment), when the registration names one. */
  handler?: string;
  /** True for a decorator or annotation: the node at `line` is the handler. */
  decorated?: boolean;
  /** The object registering it (`router` in `router.get(…)`), for JavaScript-style registrations. */
  receiver?: string;
}

const PARAM = /^(?::\w+\??(?:\(.*\)|\{[^}]*\})?|\{[^}]*\}|<[^>]*>|\[[^\]]*\]|\*\w*|\$\{[^}]*\}|%[sdv])$/;

/** A route with its parameters written alike (`/orders/{}` for `:id`, `{id}`, `<int:id>`, `[id]`, `*`), no trailing slash. */
export function routeKey(route: string): string {
  const path = route.split(/[?#]/)[0];
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (PARAM.test(s) || /\$\{|%[sdv]/.test(s) ? '{}' : s));
  return `/${segments.join('/')}`;
}

/** Whether a requested key reaches a served one: same segment count, every literal segment equal, one at least. */
export function routeMatches(served: string, requested: string): boolean {
  const a = served.split('/');
  const b = requested.split('/');
  if (a.length !== b.length) return false;
  let literal = 0;
  for (let i = 1; i < a.length; i++) {
    if (a[i] === '{}' || b[i] === '{}') continue;
    if (a[i] !== b[i]) return false;
    literal++;
  }
  return literal > 0;
}

/** Whether a served key reaches the tail of a longer requested one: a route of a router mounted under a prefix the reading did not join (`app.use('/api', router)`). */
export function routeMatchesMounted(served: string, requested: string): boolean {
  const tail = requested.split('/').slice(1);
  const k = served.split('/').length - 1;
  return k < tail.length && routeMatches(served, `/${tail.slice(tail.length - k).join('/')}`);
}

/** Files of tests and mocks by their path (any language's conventions): a route they register stands in for the served one. */
const TEST_OR_MOCK = /(?:^|\/)(?:tests?|__tests__|__mocks__|mocks?|spec|specs|testing|fixtures?)\/|\.(?:test|spec)\.[cm]?[jt]sx?$|_test\.go$|(?:^|\/)test_[^/]*\.py$|_tests?\.py$|(?:^|\/)conftest\.py$|Tests?\.(?:java|kt)$/;

/** Whether a file is a test or a mock, whose route registrations yield to the code's own. */
export const isTestOrMock = (file: string): boolean => TEST_OR_MOCK.test(file);

/** 1-based line of a character index (the text's line starts built on first use). */
export function lineIndex(text: string): (index: number) => number {
  let lines: LineIndex | undefined;
  return (index) => lineAt((lines ??= indexLines(text)), index);
}

export const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
/** Receivers whose `get('/x')` is a request, not a registration. */
export const CLIENTS = /^(?:axios|ky|got|superagent|request|requests|httpx|session|sess|client|httpClient|http|\$http|api|apiClient|restTemplate|webClient)$/;
const JS_ROUTE = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\.\s*(get|post|put|delete|patch|all|head|options)\s*\(\s*(['"`])(\/[^'"`\n]*)\3\s*,([^\n]*)/g;
const PY_ROUTE = /@([\w.]+)\.(get|post|put|delete|patch|head|options|route|api_route)\(\s*[rb]?(['"])(\/[^'"\n]*|)\3([^\n]*)/g;
/** A FastAPI router or Flask blueprint made with a prefix: `router = APIRouter(prefix="/users")`. */
const PY_PREFIXED = /^[ \t]*(\w+)[ \t]*=[ \t]*(?:[\w.]+\.)?(?:APIRouter|Blueprint)\(([^)]{0,1000})/gm;
const GO_ROUTE = /(\b[A-Za-z_]\w*)?\.(HandleFunc|Handle|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Get|Post|Put|Delete|Patch|Head|Options|Any)\(\s*"(?:([A-Z]+)\s+)?(\/[^"\n]*|)"\s*,([^\n]*)/g;
/** Go registration methods other objects have too (a cache's `Get`, a client's `Post`); `HandleFunc`, `GET`, `Any` are routers' alone. */
const GO_SHARED_VERB = /^(?:Get|Post|Put|Delete|Patch|Head|Options)$/;
/** A gin/echo/fiber route group: `v1 := r.Group("/v1")` (its routes `v1.GET("/x", h)` are under the prefix, and under its parent's). */
const GO_GROUP = /\b([A-Za-z_]\w*)\s*:?=\s*([A-Za-z_]\w*)\.Group\(\s*"([^"\n]*)"/g;
/** Spring's mappings, a path or none (`@GetMapping`, `@GetMapping(produces = …)`: the class's prefix alone). */
const SPRING = /@(Get|Post|Put|Delete|Patch|Request)Mapping\b(?:\(\s*(?:(?:value|path)\s*=\s*)?\{?\s*(?:"([^"\n]*)")?)?/g;
const CLASS_DECL = /\b(?:class|interface)\s/;
/** NestJS: `@Controller('users')` (or `{ path: 'users' }`) on a class, `@Get(':id')` on its methods. */
const NEST = /@(Controller|Get|Post|Put|Delete|Patch|Options|Head|All)\(\s*(?:(['"`])([^'"`\n]*)\2|\{[^}\n]{0,200}?\bpath\s*:\s*(['"`])([^'"`\n]*)\4)?/g;
/** Django URLconf entries: `path('users/<int:pk>/', views.detail, name=…)`, `re_path(r'^users/(?P<pk>\d+)/$', …)`. */
const DJANGO = /\b(path|re_path|url)\(\s*r?(['"])([^'"\n]*)\2\s*,\s*([^\n]*)/g;
/**
 * Registrations, requests and candidate matches read per file at most: a generated file of tens of
 * thousands of routes costs a bounded time on the main thread (a 1 MB one took 0.2–0.8 s).
 */
export const MAX_ROUTES_PER_FILE = 2000;
const MAX_MATCHES = 4 * MAX_ROUTES_PER_FILE;

/** At most `n` matches of a global pattern, lazily (a file's tail past them is not scanned). */
export function* firstMatches(text: string, re: RegExp, n = MAX_MATCHES): Generator<RegExpExecArray> {
  let i = 0;
  for (const m of text.matchAll(re)) {
    if (i++ >= n) return;
    yield m;
  }
}

/**
 * The first match of a global (sticky-free) pattern at or after an index, for indexes that never
 * decrease: the text is scanned about once in all, not once per question (a run of decorators with
 * no `def` after them scanned the rest of the file for each).
 */
export function nextMatchFinder(text: string, re: RegExp): (from: number) => RegExpExecArray | null {
  let last: RegExpExecArray | null | undefined;
  return (from) => {
    if (last === null || (last !== undefined && last.index >= from)) return last;
    re.lastIndex = from;
    return (last = re.exec(text));
  };
}
const ANY_METHOD = new Set(['ALL', 'ROUTE', 'API_ROUTE', 'HANDLEFUNC', 'HANDLE', 'ANY', 'REQUEST']);

/** The route registrations in one file's text (MAX_ROUTES_PER_FILE at most; `counts.cut` adds those left out). */
export function routesIn(file: string, source: string, counts?: CutCount): RouteRegistration[] {
  const out = new Capped<RouteRegistration>(counts);
  // Most files register no route: a cheap test before the patterns run.
  if (!/['"`]\/|Mapping\(|@Controller\(|\burlpatterns\b/.test(source)) return out.items;
  // A registration commented out registers nothing.
  const text = blankComments(file, source);
  const lineOf = lineIndex(text);
  const method = (word: string) => (ANY_METHOD.has(word.toUpperCase()) ? null : word.toUpperCase());
  if (file.endsWith('.py')) {
    if (/\burlpatterns\b/.test(text)) djangoRoutes(file, text, lineOf, out);
    const prefixes = new Map<string, string>();
    for (const m of firstMatches(text, PY_PREFIXED)) {
      const prefix = /\b(?:url_)?prefix\s*=\s*["']([^"']*)["']/.exec(m[2])?.[1];
      if (prefix) prefixes.set(m[1], prefix.replace(/\/+$/, ''));
    }
    const nextDef = nextMatchFinder(text, /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+/gm);
    for (const m of firstMatches(text, PY_ROUTE)) {
      if (out.done) break;
      // The decorated function: the first `def` after the decorator (other decorators may sit between).
      const def = nextDef(m.index + m[0].length);
      if (!def) break;
      const listed = /methods\s*=\s*\[([^\]]{0,500})\]/.exec(m[5])?.[1].match(/[A-Za-z]+/g);
      const line = lineOf(def.index + def[0].length - 1);
      const route = `${prefixes.get(m[1]) ?? ''}${m[4]}`.replace(/(.)\/$/, '$1');
      for (const verb of listed ?? [m[2]]) out.push({ method: method(verb), route, file, line, decorated: true, receiver: m[1] });
    }
  } else if (/\.(?:java|kt)$/.test(file)) {
    const declarationAfter = declarationFinder(text.split('\n'));
    const lines = declarationAfter.lines;
    // The class a method is in: the last class declaration above it (lines read once, in order).
    let classLine = -1;
    let scanned = 0;
    const classAbove = (line: number) => {
      for (; scanned < line; scanned++) if (CLASS_DECL.test(lines[scanned])) classLine = scanned;
      return classLine;
    };
    let prefix = { line: -1, path: '' };
    for (const m of firstMatches(text, SPRING)) {
      if (out.done) break;
      const path = m[2] ?? '';
      // The declaration the annotation sits on: the next line that is no annotation.
      const decl = declarationAfter(lineOf(m.index));
      if (decl < 0) continue;
      // On a class, the mapping is the prefix of that class's routes (not of a later class's).
      if (CLASS_DECL.test(lines[decl])) {
        prefix = { line: decl, path: path.replace(/\/+$/, '') };
        continue;
      }
      const under = classAbove(decl) === prefix.line ? prefix.path : '';
      const route = `${under}${path === '' || path.startsWith('/') ? '' : '/'}${path}` || '/';
      out.push({ method: method(m[1]), route, file, line: decl + 1, decorated: true });
    }
  } else {
    if (/@Controller\(/.test(text)) nestRoutes(file, text, lineOf, out);
    const go = file.endsWith('.go');
    const names = { isValue: valueNames(text), isFunction: functionNames(text, go) };
    const isRouter = routerReceivers(text, go);
    if (go) {
      const groups = goGroups(text);
      for (const m of firstMatches(text, GO_ROUTE)) {
        if (out.done) break;
        // An empty path only on a group (`api.GET("", h)`: the group's own route; `cache.Get("", f)` is no route).
        if (m[4] === '' && !(m[1] !== undefined && groups.has(m[1]))) continue;
        // net/http's client calls: `http.Post("/x", "application/json", body)` requests, registers nothing.
        if (m[1] === 'http' && /^(?:Get|Post|Head)$/.test(m[2])) continue;
        // chi's and fiber's `Get`/`Post`… are also a cache's or a client's methods: a router's only when the file says so (the other verbs are routers' alone).
        const routerReceiver = () => !GO_SHARED_VERB.test(m[2]) || m[1] === undefined || groups.has(m[1]) || isRouter(m[1]);
        const arg = handlerArgument(m[5], names, routerReceiver);
        if (!arg) continue;
        const handler = arg.handler;
        const route = m[1] !== undefined && groups.has(m[1]) ? joinPath(groups.get(m[1])!, m[4]) : m[4];
        out.push({ method: m[3] ?? method(m[2]), route, file, line: lineOf(m.index + (m[1]?.length ?? 0)), handler });
      }
      return out.items;
    }
    const madeRouter = routerTest(text);
    for (const m of firstMatches(text, JS_ROUTE)) {
      if (out.done) break;
      // `api.get('/x', h)` is a request unless this file makes `api` a router.
      if (CLIENTS.test(m[1]) && !madeRouter(m[1])) continue;
      // A call with no function among its arguments registers nothing, nor one of an object no router passing a name the file tells nothing of (`cache.put('/x', v)`).
      const arg = handlerArgument(m[5], names, () => isRouter(m[1]));
      if (!arg) continue;
      const handler = arg.handler;
      out.push({ method: method(m[2]), route: m[4], file, line: lineOf(m.index), handler, receiver: m[1] });
    }
  }
  return out.items;
}

/** Items a reading found past MAX_ROUTES_PER_FILE and left out (a count: the reading goes on past the cap to make it, up to its matches' cap). */
export interface CutCount {
  cut: number;
}

/** A list that takes MAX_ROUTES_PER_FILE items at most, counting the others when asked. */
export class Capped<T> {
  readonly items: T[] = [];
  constructor(private readonly counts?: CutCount) {}
  get full(): boolean {
    return this.items.length >= MAX_ROUTES_PER_FILE;
  }
  /** Whether the reading may stop: full, and no count of what is left out asked. */
  get done(): boolean {
    return this.full && this.counts === undefined;
  }
  push(x: T): void {
    if (!this.full) this.items.push(x);
    else if (this.counts) this.counts.cut++;
  }
}

/** Each Go route group's whole prefix, its parents' joined (`api := r.Group("/api")`, `v1 := api.Group("/v1")` → /api/v1). */
function goGroups(text: string): Map<string, string> {
  const own = new Map<string, { parent: string; prefix: string }>();
  if (text.includes('.Group(')) for (const m of firstMatches(text, GO_GROUP)) own.set(m[1], { parent: m[2], prefix: m[3] });
  const whole = new Map<string, string>();
  const resolve = (name: string, depth: number): string => {
    const g = own.get(name);
    if (!g || depth > 8) return '';
    return joinPath(g.parent === name ? '' : resolve(g.parent, depth + 1), g.prefix);
  };
  for (const name of own.keys()) whole.set(name, resolve(name, 0));
  return whole;
}

const MADE_ROUTER = /(?<![\w$])([A-Za-z_$][\w$]*)\s*=\s*(?:new\s+)?(?:[\w.]+\.)?Router\(/g;

/** Whether the text makes a name an Express-style router (`const api = express.Router()`): the names read once, on the first question. */
export function routerTest(text: string): (name: string) => boolean {
  let names: Set<string> | undefined;
  return (name) => (names ??= new Set(Array.from(firstMatches(text, MADE_ROUTER), (m) => m[1]))).has(name);
}

/**
 * The line (0-based) of the declaration an annotation or decorator at line `at` sits on: the next
 * line that is none, or -1. Asked for lines that never decrease, it reads each line about once.
 */
function declarationFinder(lines: readonly string[]): ((at: number) => number) & { lines: readonly string[] } {
  let from = -1;
  let found = -1;
  const find = (at: number): number => {
    // The last answer holds for any line from the last question's up to it (annotations between).
    if (from >= 0 && at >= from && (found < 0 || at <= found)) return found;
    from = at;
    found = -1;
    for (let i = at; i < lines.length; i++) {
      if (lines[i].trim() !== '' && !/^\s*@/.test(lines[i])) {
        found = i;
        break;
      }
    }
    return found;
  };
  return Object.assign(find, { lines });
}

/** `/a` + `b/` → `/a/b`: segments joined with one slash, no trailing one. */
export function joinPath(prefix: string, route: string): string {
  return `/${[prefix, route].map((p) => p.replace(/^\/+|\/+$/g, '')).filter((p) => p !== '').join('/')}`;
}

function nestRoutes(file: string, text: string, lineOf: (index: number) => number, out: Capped<RouteRegistration>): void {
  const declarationAfter = declarationFinder(text.split('\n'));
  const lines = declarationAfter.lines;
  let prefix = '';
  for (const m of firstMatches(text, NEST)) {
    if (out.done) return;
    const path = m[3] ?? m[5] ?? '';
    if (m[1] === 'Controller') {
      prefix = path;
      continue;
    }
    const decl = declarationAfter(lineOf(m.index));
    // A decorator of no method (a property, a class): not a route.
    if (decl < 0 || /\b(?:class|interface)\s/.test(lines[decl]) || !/\(/.test(lines[decl])) continue;
    out.push({ method: m[1] === 'All' ? null : m[1].toUpperCase(), route: joinPath(prefix, path), file, line: decl + 1, decorated: true });
  }
}

/** A Django `re_path` pattern as a route: anchors dropped, each group a parameter; null for a pattern that is no plain path. */
export function regexRoute(pattern: string): string | null {
  let t = pattern.replace(/^\^/, '').replace(/\$$/, '');
  t = t.replace(/\((?:\?P<\w+>)?[^()]*\)/g, '{}').replace(/\\([./-])/g, '$1');
  return /[\\^$*+?|()[\]]/.test(t) ? null : t;
}

function djangoRoutes(file: string, text: string, lineOf: (index: number) => number, out: Capped<RouteRegistration>): void {
  for (const m of firstMatches(text, DJANGO)) {
    if (out.done) return;
    // The view: `views.detail`, or a class's `views.Detail.as_view()`; an `include(...)` is a mount (mountsIn).
    const view = /^([\w.]+?)(?:\.as_view)?\s*[,)(]/.exec(m[4].trim())?.[1];
    if (view === 'include') continue;
    const route = m[1] === 'path' ? m[3] : regexRoute(m[3]);
    if (route === null) continue;
    const handler = view === undefined || view === 'lambda' ? undefined : view.slice(view.lastIndexOf('.') + 1);
    out.push({ method: null, route: joinPath('', route), file, line: lineOf(m.index), ...(handler ? { handler } : {}) });
  }
}
