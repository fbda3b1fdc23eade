/**
 * Mounts: the prefixes routers are served under, joined across files. `app.use('/api', router)` (a
 * router made in that file, or required/imported from a relative module), Hono's `app.route`,
 * Fastify's `register(plugin, { prefix })`, FastAPI's `include_router(r, prefix=…)`, Flask's
 * `register_blueprint(bp, url_prefix=…)` and Django's `path('api/', include('shop.urls'))`.
 * `mountsIn` reads one file's mounts; `mountPrefixes` chains them over a repository (a router
 * mounted by a router mounted under `/api`); `mountedRoutes` joins them to the routes http-routes.ts read.
 */
import { dirname, posix } from 'node:path';
import { firstMatches, IDENT, joinPath, lineIndex, regexRoute, routerTest } from './http-routes.ts';
import { blankComments } from './source-comments.ts';

/** A router mounted under a prefix by a `receiver.use('/prefix', router)` call (Hono: `app.route`; Fastify: `register(plugin, { prefix })`; Django: an `include`). */
export interface RouteMount {
  prefix: string;
  line: number;
  /** The object mounting it (`app`, `api`); '' for Django. */
  receiver: string;
  /**
   * What is mounted: a relative module's routes (its repository-relative path without the extension,
   * `routes/users`), a router made in this very file (`router` names it), or (Django) a module path suffix.
   */
  target: { path: string; router?: string } | { suffix: string; router?: string };
}

const JS_MOUNT = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\.\s*(?:use|route)\(\s*(['"`])(\/[^'"`\n]*)\2\s*,([^\n]*)/g;
const JS_IMPORT = /\bimport\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s+from\s+(['"])(\.{1,2}\/[^'"]+)\2|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*(['"])(\.{1,2}\/[^'"]+)\5\s*\)/g;
const FASTIFY_MOUNT = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\.\s*register\(\s*(require\(\s*['"][^'"\n]{1,300}['"]\s*\)|[A-Za-z_$][\w$.]*)\s*,\s*\{[^}\n]{0,120}?\bprefix\s*:\s*(['"`])(\/[^'"`\n]*)\3/g;
const INLINE_REQUIRE = /^\s*require\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/;
const PY_MOUNT = /\b([A-Za-z_]\w*)\.(include_router|register_blueprint)\(\s*([A-Za-z_][\w.]*)\s*([,)][^\n]*)/g;
const DJANGO_INCLUDE = /\b(path|re_path|url)\(\s*r?(['"])([^'"\n]*)\2\s*,\s*include\(\s*\(?\s*(['"])([\w.]+)\4/g;
const JS_EXT = /\.[cm]?[jt]sx?$/;
/** A FastAPI router or Flask blueprint made in a file: `router = APIRouter(…)`. */
const PY_ROUTER = /^[ \t]*(\w+)[ \t]*=[ \t]*(?:[\w.]+\.)?(?:APIRouter|Blueprint)\(/gm;
/** Mounts read per file at most. */
const MAX_MOUNTS = 200;
/**
 * Prefixes one file's or router's routes are served under at most: mounts chained over files multiply
 * (16 mounts of a file under itself made 16^5 prefixes, a million routes from one).
 */
const MAX_PREFIXES = 32;

/** The mounts one file's text makes. */
export function mountsIn(file: string, source: string): RouteMount[] {
  const out: RouteMount[] = [];
  const python = file.endsWith('.py');
  if (python ? !/\b(?:include|include_router|register_blueprint)\(/.test(source) : !JS_EXT.test(file) || !/\.\s*(?:use|route)\(\s*['"`]\/|\bprefix\s*:/.test(source)) return out;
  // A mount commented out mounts nothing.
  const text = blankComments(file, source);
  const push = (m: RouteMount) => void (out.length < MAX_MOUNTS && out.push(m));
  const matches = (re: RegExp) => firstMatches(text, re, 4 * MAX_MOUNTS);
  if (python) {
    const lineOf = lineIndex(text);
    for (const m of matches(DJANGO_INCLUDE)) {
      const route = m[1] === 'path' ? m[3] : regexRoute(m[3]);
      if (route !== null) push({ prefix: joinPath('', route), line: lineOf(m.index), receiver: '', target: { suffix: `${m[5].replace(/\./g, '/')}.py` } });
    }
    // FastAPI `app.include_router(users.router, prefix="/api")`, Flask `app.register_blueprint(bp, url_prefix="/api")`.
    let imports: Map<string, { module: string; name: string | null }> | undefined;
    let routers: Set<string> | undefined;
    const madeHere = (name: string) => (routers ??= new Set(Array.from(matches(PY_ROUTER), (m) => m[1]))).has(name);
    for (const m of matches(PY_MOUNT)) {
      const prefix = /\b(?:url_)?prefix\s*=\s*["']([^"']*)["']/.exec(m[4])?.[1];
      if (!prefix) continue;
      const [head, ...rest] = m[3].split('.');
      const bound = (imports ??= pythonImports(text)).get(head);
      const at = { prefix, line: lineOf(m.index), receiver: m[1] };
      // `users.router` of `from .api import users`: the module .api.users; `router` of `from .api.users import router`: .api.users.
      if (bound) push({ ...at, target: { suffix: pythonModuleFile(file, rest.length && bound.name ? `${bound.module}.${bound.name}` : bound.module) } });
      else if (rest.length === 0 && madeHere(head)) push({ ...at, target: { suffix: file, router: head } });
    }
    return out;
  }
  const lineOf = lineIndex(text);
  const imported = new Map<string, string>();
  for (const m of matches(JS_IMPORT)) imported.set(m[1] ?? m[4], m[3] ?? m[6]);
  const here = dirname(file);
  const local = (spec: string) => posix.normalize(posix.join(here === '.' ? '' : here, spec)).replace(JS_EXT, '');
  const isRouter = routerTest(text);
  for (const m of matches(JS_MOUNT)) {
    if (out.length >= MAX_MOUNTS) break;
    const args = m[4];
    const inline = INLINE_REQUIRE.exec(args);
    const last = args.slice(0, args.search(/\)\s*;?\s*$|$/)).split(',').pop()!.trim();
    const spec = inline?.[2] ?? imported.get(last);
    const at = { prefix: m[3], line: lineOf(m.index), receiver: m[1] };
    if (spec !== undefined) push({ ...at, target: { path: local(spec) } });
    // A router made in this file (`const api = express.Router()`), mounted here.
    else if (IDENT.test(last) && isRouter(last)) push({ ...at, target: { path: file.replace(JS_EXT, ''), router: last } });
  }
  // Fastify: `app.register(require('./users'), { prefix: '/api' })`, or an imported plugin.
  for (const m of matches(FASTIFY_MOUNT)) {
    if (out.length >= MAX_MOUNTS) break;
    const spec = INLINE_REQUIRE.exec(m[2])?.[2] ?? imported.get(m[2].trim());
    if (spec !== undefined) push({ prefix: m[4], line: lineOf(m.index), receiver: m[1], target: { path: local(spec) } });
  }
  return out;
}

/** Names a Python file binds by import: `from M import a as b` → b: {M, a}; `import a.b as c` → c: {a.b, null}. */
function pythonImports(text: string): Map<string, { module: string; name: string | null }> {
  const out = new Map<string, { module: string; name: string | null }>();
  // A parenthesised list is read up to its `)` or 2,000 characters (a `(` never closed scanned the rest of the file for each import).
  for (const m of firstMatches(text, /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]{0,2000}\)?|[^\n#]+)/gm)) {
    for (const part of m[2].replace(/[()\\]/g, ' ').split(',')) {
      const [name, alias] = part.trim().split(/\s+as\s+/);
      if (name && /^\w+$/.test(name)) out.set(alias?.trim() || name, { module: m[1], name });
    }
  }
  for (const m of firstMatches(text, /^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?/gm)) out.set(m[2] ?? m[1].split('.')[0], { module: m[2] ? m[1] : m[1].split('.')[0], name: null });
  return out;
}

/** The file a Python module names, as a path suffix: a relative module from `file`'s folder (`.api.users` → `pkg/api/users.py`). */
function pythonModuleFile(file: string, module: string): string {
  const dots = /^\.*/.exec(module)![0].length;
  const path = module.slice(dots).replace(/\./g, '/');
  if (dots === 0) return `${path}.py`;
  let dir = dirname(file);
  for (let i = 1; i < dots; i++) dir = dirname(dir);
  return `${[dir === '.' ? '' : dir, path].filter((p) => p !== '').join('/')}.py`;
}

type FromMount = RouteMount & { from: string };

/** The prefixes routes are served under, per file, then per registering object ('*': all of the file's routes). */
export type MountPrefixes = Map<string, Map<string, string[]>>;

/**
 * The prefixes routes are served under, from every file's mounts, chained (a router mounted by a
 * router that is itself mounted gets both prefixes; up to 4 deep, MAX_PREFIXES at most). A module mounted from another file
 * has all its routes under the prefix; a router mounted in its own file only the routes registered on
 * it. Files no mount names are absent.
 */
export function mountPrefixes(mounts: ReadonlyMap<string, readonly RouteMount[]>, allFiles: Iterable<string>): MountPrefixes {
  const byStem = new Map<string, string>();
  /** Python files by every path suffix (`shop/urls.py`, `urls.py`): an include names a module from wherever the project's root is. */
  const bySuffix = new Map<string, string | null>();
  for (const f of allFiles) {
    if (f.endsWith('.py')) {
      for (let i = 0; i >= 0; i = f.indexOf('/', i) + 1 || -1) {
        const suffix = f.slice(i);
        bySuffix.set(suffix, bySuffix.has(suffix) && bySuffix.get(suffix) !== f ? null : f);
      }
      continue;
    }
    const stem = f.replace(JS_EXT, '');
    if (stem === f) continue;
    byStem.set(stem, f);
    if (stem.endsWith('/index')) byStem.set(stem.slice(0, -'/index'.length), f);
  }
  /** Per mounted file and router ('*'): the mounts naming it. */
  const direct = new Map<string, Map<string, FromMount[]>>();
  for (const [from, list] of mounts) {
    for (const m of list) {
      // A suffix two files end with names neither.
      const target = 'path' in m.target ? byStem.get(m.target.path) : (bySuffix.get(m.target.suffix) ?? undefined);
      if (target === undefined) continue;
      const router = m.target.router ?? '*';
      const perRouter = direct.get(target) ?? new Map<string, FromMount[]>();
      direct.set(target, perRouter);
      perRouter.set(router, [...(perRouter.get(router) ?? []), { ...m, from }]);
    }
  }
  /** Per file and router, its prefixes once resolved (a router mounted in many places is resolved once). */
  const resolved = new Map<string, string[]>();
  const onPath = new Set<string>();
  /** The prefixes of routes registered on `router` in `file` (at most MAX_PREFIXES; a mount cycle ends at the root). */
  const resolve = (file: string, router: string, depth: number): string[] => {
    const id = `${file}\0${router}`;
    const known = resolved.get(id);
    if (known) return known;
    const perRouter = direct.get(file);
    const via = [...(perRouter?.get('*') ?? []), ...(router !== '*' ? (perRouter?.get(router) ?? []) : [])];
    if (via.length === 0 || depth > 4 || onPath.has(id)) return [''];
    onPath.add(id);
    const prefixes = new Set<string>();
    for (const v of via) {
      for (const outer of resolve(v.from, v.receiver, depth + 1)) {
        if (prefixes.size >= MAX_PREFIXES) break;
        prefixes.add(joinPath(outer, v.prefix));
      }
    }
    onPath.delete(id);
    const out = [...prefixes];
    resolved.set(id, out);
    return out;
  };
  const out: MountPrefixes = new Map();
  for (const [file, perRouter] of direct) out.set(file, new Map([...perRouter.keys()].map((router) => [router, resolve(file, router, 0)])));
  return out;
}

/** A file's routes as served: each joined to the prefixes its file or router is mounted under. */
export function mountedRoutes<T extends { file: string; route: string; receiver?: string }>(routes: readonly T[], prefixes: MountPrefixes): T[] {
  if (prefixes.size === 0) return [...routes];
  const out: T[] = [];
  for (const r of routes) {
    const perRouter = prefixes.get(r.file);
    const under = perRouter === undefined ? undefined : r.receiver !== undefined && perRouter.has(r.receiver) ? perRouter.get(r.receiver) : perRouter.get('*');
    if (under === undefined) out.push(r);
    else for (const prefix of under) out.push({ ...r, route: joinPath(prefix, r.route) });
  }
  return out;
}
