/**
 * HTTP routes in source text: the routes a file serves and the URLs it requests, read with patterns
 * (no parse), for the runtime overlay (a span's `http.route` → its handler) and federation (a request
 * in one repository → the handler another serves it with).
 *
 * Served: Express/Koa/Fastify/Hono-style `x.get('/orders/:id', getOrder)` (a handler argument
 * required: `axios.get('/x', { params })` serves nothing), Python route decorators
 * (`@app.get("/x")`, `@app.route("/x", methods=[…])`), Go `HandleFunc`/gin/chi/echo registrations
 * (`"GET /x"` patterns too), Spring `@GetMapping`-style annotations under the class's
 * `@RequestMapping` prefix. Requested: `fetch`, axios/ky/got/superagent and other client receivers,
 * Python `requests`/`httpx`/sessions/clients, Go `http.Get`/`http.Post`, Spring's RestTemplate.
 */
import { indexLines, lineAt, type LineIndex } from './engine/parsers/source-lines.ts';

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
}

export interface RouteRequest {
  /** The requested path as a route key (`/api/users/{}`). */
  key: string;
  line: number;
}

const PARAM = /^(?::\w+\??(?:\(.*\))?|\{[^}]*\}|<[^>]*>|\[[^\]]*\]|\*\w*|\$\{[^}]*\}|%[sdv])$/;

/** A route with its parameters written alike (`/orders/{}` for `:id`, `{id}`, `<int:id>`, `[id]`, `*`), no trailing slash. */
export function routeKey(route: string): string {
  const path = route.split(/[?#]/)[0];
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (PARAM.test(s) || /\$\{|%[sdv]/.test(s) ? '{}' : s));
  return `/${segments.join('/')}`;
}

/**
 * A requested URL as a route key: scheme and host dropped, a leading interpolation read as the base
 * URL (`${API}/users`, f-string `{base}/users`, `%s/users`); null when no absolute path is left.
 */
export function requestKey(url: string): string | null {
  let t = url.trim().replace(/^https?:\/\/[^/]*/i, '');
  t = t.replace(/^(?:\$\{[^}]*\}|\{[^}]*\}|%[sv])+/, '');
  if (!t.startsWith('/') || /[\s"'`]/.test(t.split(/[?#]/)[0])) return null;
  // An f-string's `{id}` inside a segment is a parameter too.
  return routeKey(t.replace(/\{[^}/]*\}/g, '{}'));
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

/** 1-based line of a character index (the text's line starts built on first use). */
function lineIndex(text: string): (index: number) => number {
  let lines: LineIndex | undefined;
  return (index) => lineAt((lines ??= indexLines(text)), index);
}

const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
/** The last argument before the first `)`, when it is a plain (dotted) identifier: its last segment. */
function handlerArg(rest: string): string | undefined {
  const args = rest.slice(0, rest.search(/\)|$/)).split(',');
  const last = args[args.length - 1].trim();
  return IDENT.test(last) ? last.slice(last.lastIndexOf('.') + 1) : undefined;
}

/** Receivers whose `get('/x')` is a request, not a registration. */
const CLIENTS = /^(?:axios|ky|got|superagent|request|requests|httpx|session|sess|client|httpClient|http|\$http|api|apiClient|restTemplate|webClient)$/;
const JS_ROUTE = /(?:\b|\$)([A-Za-z_$][\w$]*)\s*\.\s*(get|post|put|delete|patch|all|head|options)\s*\(\s*(['"`])(\/[^'"`\n]*)\3\s*,([^\n]*)/g;
const PY_ROUTE = /@([\w.]+)\.(get|post|put|delete|patch|head|options|route|api_route)\(\s*[rb]?(['"])(\/[^'"\n]*)\3([^\n]*)/g;
/** A FastAPI router or Flask blueprint made with a prefix: `router = APIRouter(prefix="/users")`. */
const PY_PREFIXED = /^[ \t]*(\w+)[ \t]*=[ \t]*(?:[\w.]+\.)?(?:APIRouter|Blueprint)\(([^)]*)\)/gm;
const GO_ROUTE = /\.(HandleFunc|Handle|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Get|Post|Put|Delete|Patch|Head|Options|Any)\(\s*"(?:([A-Z]+)\s+)?(\/[^"\n]*)"\s*,([^\n]*)/g;
const SPRING = /@(Get|Post|Put|Delete|Patch|Request)Mapping\(\s*(?:(?:value|path)\s*=\s*)?\{?\s*"([^"\n]*)"/g;
const INLINE_HANDLER = /=>|\bfunction\b|\bfunc\b/;
const ANY_METHOD = new Set(['ALL', 'ROUTE', 'API_ROUTE', 'HANDLEFUNC', 'HANDLE', 'ANY', 'REQUEST']);

/** The route registrations in one file's text. */
export function routesIn(file: string, text: string): RouteRegistration[] {
  const out: RouteRegistration[] = [];
  // Most files register no route: a cheap test before the patterns run.
  if (!/['"`]\/|Mapping\(/.test(text)) return out;
  const lineOf = lineIndex(text);
  const method = (word: string) => (ANY_METHOD.has(word.toUpperCase()) ? null : word.toUpperCase());
  if (file.endsWith('.py')) {
    const prefixes = new Map<string, string>();
    for (const m of text.matchAll(PY_PREFIXED)) {
      const prefix = /\b(?:url_)?prefix\s*=\s*["']([^"']*)["']/.exec(m[2])?.[1];
      if (prefix) prefixes.set(m[1], prefix.replace(/\/+$/, ''));
    }
    for (const m of text.matchAll(PY_ROUTE)) {
      // The decorated function: the first `def` after the decorator (other decorators may sit between).
      const def = /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+/m.exec(text.slice(m.index + m[0].length));
      if (!def) continue;
      const listed = /methods\s*=\s*\[([^\]]*)\]/.exec(m[5])?.[1].match(/[A-Za-z]+/g);
      const line = lineOf(m.index + m[0].length + def.index + def[0].length - 1);
      const route = `${prefixes.get(m[1]) ?? ''}${m[4]}`.replace(/(.)\/$/, '$1');
      for (const verb of listed ?? [m[2]]) out.push({ method: method(verb), route, file, line, decorated: true });
    }
  } else if (/\.(?:java|kt)$/.test(file)) {
    const lines = text.split('\n');
    let prefix = '';
    for (const m of text.matchAll(SPRING)) {
      const at = lineOf(m.index);
      // The declaration the annotation sits on: the next line that is no annotation.
      const decl = lines.findIndex((l, i) => i >= at && l.trim() !== '' && !/^\s*@/.test(l));
      if (decl < 0) continue;
      // On a class, the mapping is the prefix of the class's routes.
      if (/\b(?:class|interface)\s/.test(lines[decl])) {
        prefix = m[2].replace(/\/+$/, '');
        continue;
      }
      const route = `${prefix}${m[2] === '' || m[2].startsWith('/') ? '' : '/'}${m[2]}` || '/';
      out.push({ method: method(m[1]), route, file, line: decl + 1, decorated: true });
    }
  } else {
    const go = file.endsWith('.go');
    for (const m of text.matchAll(go ? GO_ROUTE : JS_ROUTE)) {
      if (!go && CLIENTS.test(m[1])) continue;
      const rest = go ? m[4] : m[5];
      const handler = handlerArg(rest);
      // A call with no function argument (`cache.get('/x', fallback)` aside) registers nothing.
      if (!handler && !INLINE_HANDLER.test(rest)) continue;
      out.push({ method: go ? (m[2] ?? method(m[1])) : method(m[2]), route: go ? m[3] : m[4], file, line: lineOf(m.index), handler });
    }
  }
  return out;
}

const CLIENT_CALL = /(?:\b|\$)([A-Za-z_$][\w$]*)\.(get|post|put|patch|delete|head|options|request|Get|Post|Head|getForObject|getForEntity|postForObject|postForEntity|exchange)\(\s*f?(["'`])([^"'`\n]*)\3([^\n]*)/g;
const FETCH = /\bfetch\(\s*(["'`])([^"'`\n]*)\1([^\n]*)/g;

/** The URLs a file's text requests, as route keys: a literal, and `'/x/' + id` as one more segment. */
export function requestsIn(text: string): RouteRequest[] {
  const out: RouteRequest[] = [];
  if (!/fetch\(|\.(?:get|post|put|patch|delete|Get|Post|request|exchange|\w+For(?:Object|Entity))\(/.test(text)) return out;
  const lineOf = lineIndex(text);
  const take = (index: number, literal: string, rest: string) => {
    const key = requestKey(/^\s*\+/.test(rest) && literal.endsWith('/') ? `${literal}{}` : literal);
    if (key && key !== '/') out.push({ key, line: lineOf(index) });
  };
  for (const m of text.matchAll(CLIENT_CALL)) if (CLIENTS.test(m[1])) take(m.index, m[4], m[5]);
  for (const m of text.matchAll(FETCH)) take(m.index, m[2], m[3]);
  return out;
}
