/**
 * HTTP routes registered in the workspace's code, for spans that carry `http.route` (or are named
 * `GET /orders/:id`): Express/Fastify-style `app.get('/orders/:id', getOrder)`, Python decorators
 * `@app.get("/orders/{id}")` / `@app.route(...)`, Go `http.HandleFunc("/x", h)` / `r.GET(...)`.
 * Found by reading source files (bounded: MAX_ROUTE_FILES files of at most MAX_ROUTE_FILE_BYTES, in
 * time slices) and matched with parameters normalised (`:id`, `{id}`, `<int:id>`, `[id]`, `*` alike).
 */
import { readFile, stat } from 'node:fs/promises';
import { yieldToLoop, type CodeGraphEngine } from '../graph/api.ts';
import type { SpanFacts } from './otlp.ts';

/** Source files read for routes per call at most. */
export const MAX_ROUTE_FILES = 4000;
/** Larger source files are not read for routes. */
const MAX_ROUTE_FILE_BYTES = 1024 * 1024;
/** Main-thread time between yields while scanning. */
const SLICE_MS = 8;
const SOURCE = /\.(?:[cm]?[jt]sx?|py|go)$/;

export interface RouteRegistration {
  /** Upper-case method, or null when the registration takes any method. */
  method: string | null;
  route: string;
  file: string;
  /** 1-based line of the registration (for a decorator: of the decorated `def`). */
  line: number;
  /** The handler identifier argument (last segment), when the registration names one. */
  handler?: string;
  /** True for a decorator: the node at `line` is the handler. */
  decorated?: boolean;
}

export interface RouteIndex {
  byKey: Map<string, RouteRegistration[]>;
  filesScanned: number;
  /** Source files left unread (over the file cap or too large). */
  filesSkipped: number;
}

/** A route with its parameters written alike (`/orders/{}`), no trailing slash. */
export function routeKey(route: string): string {
  const path = route.split(/[?#]/)[0];
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (/^(?::\w+\??(?:\(.*\))?|\{[^}]*\}|<[^>]*>|\[[^\]]*\]|\*\w*)$/.test(s) ? '{}' : s));
  return `/${segments.join('/')}`;
}

const METHOD_NAME = /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s+(\/\S*)$/;

/** The route and method a span names: `http.route` (method from `http.request.method`), or a span name `GET /x`. */
export function spanRoute(span: SpanFacts): { method?: string; route: string } | null {
  const named = METHOD_NAME.exec(span.name);
  if (span.route) return { method: span.method ?? named?.[1], route: span.route };
  return named ? { method: named[1], route: named[2] } : null;
}

const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
/** The last argument before the first `)`, when it is a plain (dotted) identifier: its last segment. */
function handlerArg(rest: string): string | undefined {
  const args = rest.slice(0, rest.search(/\)|$/)).split(',');
  const last = args[args.length - 1].trim();
  return IDENT.test(last) ? last.slice(last.lastIndexOf('.') + 1) : undefined;
}

const JS_ROUTE = /\.\s*(get|post|put|delete|patch|all|head|options)\s*\(\s*(['"`])(\/[^'"`\n]*)\2\s*,([^\n]*)/g;
const PY_ROUTE = /@[\w.]+\.(get|post|put|delete|patch|head|options|route|api_route)\(\s*[rb]?(['"])(\/[^'"\n]*)\2([^\n]*)/g;
const GO_ROUTE = /\.(HandleFunc|Handle|GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|Get|Post|Put|Delete|Patch|Head|Options|Any)\(\s*"(?:([A-Z]+)\s+)?(\/[^"\n]*)"\s*,([^\n]*)/g;
const INLINE_HANDLER = /=>|\bfunction\b|\bfunc\b/;
const ANY_METHOD = new Set(['ALL', 'ROUTE', 'API_ROUTE', 'HANDLEFUNC', 'HANDLE', 'ANY']);

/** The route registrations in one file's text. */
export function routesIn(file: string, text: string): RouteRegistration[] {
  const out: RouteRegistration[] = [];
  let lineStarts: number[] | undefined;
  const lineOf = (index: number) => {
    if (!lineStarts) {
      lineStarts = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    }
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const method = (word: string) => (ANY_METHOD.has(word.toUpperCase()) ? null : word.toUpperCase());
  if (file.endsWith('.py')) {
    for (const m of text.matchAll(PY_ROUTE)) {
      // The decorated function: the first `def` after the decorator (other decorators may sit between).
      const def = /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+/m.exec(text.slice(m.index + m[0].length));
      if (!def) continue;
      const listed = /methods\s*=\s*\[([^\]]*)\]/.exec(m[4])?.[1].match(/[A-Za-z]+/g);
      const line = lineOf(m.index + m[0].length + def.index + def[0].length - 1);
      for (const verb of listed ?? [m[1]]) out.push({ method: method(verb), route: m[3], file, line, decorated: true });
    }
  } else {
    const go = file.endsWith('.go');
    for (const m of text.matchAll(go ? GO_ROUTE : JS_ROUTE)) {
      const handler = handlerArg(m[4]);
      // A call with no function argument (`axios.get('/orders', { params })`) registers nothing.
      if (!handler && !INLINE_HANDLER.test(m[4])) continue;
      out.push({ method: go ? (m[2] ?? method(m[1])) : method(m[1]), route: m[3], file, line: lineOf(m.index), handler });
    }
  }
  return out;
}

/** The routes registered in the graph's source files (bounded, yielding every SLICE_MS). */
export async function routeIndex(engine: CodeGraphEngine, files: readonly string[]): Promise<RouteIndex> {
  const byKey = new Map<string, RouteRegistration[]>();
  const sources = files.filter((f) => SOURCE.test(f));
  let filesScanned = 0;
  let filesSkipped = Math.max(0, sources.length - MAX_ROUTE_FILES);
  let start = performance.now();
  for (const file of sources.slice(0, MAX_ROUTE_FILES)) {
    if (performance.now() - start >= SLICE_MS) {
      await yieldToLoop();
      start = performance.now();
    }
    const absolute = engine.resolvePath(file).absolute;
    const info = await stat(absolute).catch(() => null);
    if (!info?.isFile() || info.size > MAX_ROUTE_FILE_BYTES) {
      filesSkipped++;
      continue;
    }
    const text = await readFile(absolute, 'utf8').catch(() => '');
    filesScanned++;
    // Most files register no route: skip them on a cheap test before the patterns run.
    if (!/['"`]\//.test(text)) continue;
    for (const r of routesIn(file, text)) {
      const key = routeKey(r.route);
      const list = byKey.get(key);
      if (list) list.push(r);
      else byKey.set(key, [r]);
    }
  }
  return { byKey, filesScanned, filesSkipped };
}
