/**
 * HTTP routes registered in the workspace's code, for spans that carry `http.route` (or are named
 * `GET /orders/:id`): the graph's reading of routes (plugins/graph/http-routes.ts: Express-style
 * registrations, Python decorators, Go handlers, Spring and NestJS mappings, Django URLconfs, joined
 * to the prefixes routers are mounted at) over the source files (bounded:
 * MAX_ROUTE_FILES files of at most MAX_ROUTE_FILE_BYTES, in time slices), keyed with parameters
 * normalised (`:id`, `{id}`, `<int:id>`, `[id]`, `*` alike).
 */
import { readFile, stat } from 'node:fs/promises';
import { mountedRoutes, mountPrefixes, mountsIn, routeKey, routesIn, yieldToLoop, type CodeGraphEngine, type CutCount, type RouteMount, type RouteRegistration } from '../graph/api.ts';
import type { SpanFacts } from './otlp.ts';

/** Source files read for routes per call at most. */
export const MAX_ROUTE_FILES = 4000;
/** Larger source files are not read for routes. */
const MAX_ROUTE_FILE_BYTES = 1024 * 1024;
/** Main-thread time between yields while scanning. */
const SLICE_MS = 8;
const SOURCE = /\.(?:[cm]?[jt]sx?|py|go|java|kt)$/;

export interface RouteIndex {
  byKey: Map<string, RouteRegistration[]>;
  filesScanned: number;
  /** Source files left unread (over the file cap or too large). */
  filesSkipped: number;
  /** Registrations files hold past the per-file cap, left out (at least these many), and the first files so cut. */
  routesCut: number;
  filesCut: string[];
}

/** Files a cut names at most. */
const CUT_FILES_SHOWN = 5;

const METHOD_NAME = /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)\s+(\/\S*)$/;

/** The route and method a span names: `http.route` (method from `http.request.method`), or a span name `GET /x`. */
export function spanRoute(span: SpanFacts): { method?: string; route: string } | null {
  const named = METHOD_NAME.exec(span.name);
  if (span.route) return { method: span.method ?? named?.[1], route: span.route };
  return named ? { method: named[1], route: named[2] } : null;
}

/** The routes registered in the graph's source files (bounded, yielding every SLICE_MS). */
export async function routeIndex(engine: CodeGraphEngine, files: readonly string[]): Promise<RouteIndex> {
  const byKey = new Map<string, RouteRegistration[]>();
  const sources = files.filter((f) => SOURCE.test(f));
  const routes: RouteRegistration[] = [];
  const mounts = new Map<string, RouteMount[]>();
  let filesScanned = 0;
  let routesCut = 0;
  const filesCut: string[] = [];
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
    const cut: CutCount = { cut: 0 };
    routes.push(...routesIn(file, text, cut));
    if (cut.cut) {
      routesCut += cut.cut;
      if (filesCut.length < CUT_FILES_SHOWN) filesCut.push(file);
    }
    const m = mountsIn(file, text);
    if (m.length) mounts.set(file, m);
  }
  // A router's routes are served under the prefixes it is mounted at (`app.use('/api', users)`).
  const served = mounts.size ? mountedRoutes(routes, mountPrefixes(mounts, sources)) : routes;
  for (const r of served) {
    const key = routeKey(r.route);
    const list = byKey.get(key);
    if (list) list.push(r);
    else byKey.set(key, [r]);
  }
  return { byKey, filesScanned, filesSkipped, routesCut, filesCut };
}
