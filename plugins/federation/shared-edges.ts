/**
 * Cross-repository edges from what two repositories share without a package dependency
 * (shared-evidence.ts reads the facts): `http_route` from a call site requesting a URL to the
 * handler another repository serves it with (or its OpenAPI document); `contract` between two
 * repositories declaring the same protobuf service or OpenAPI title, and from an MCP tool call to
 * the tool's registration; `config_key` between the first readers of one configuration key in each
 * (an environment variable or `.env` key that is no generic one like `PORT`). Each file's facts are
 * kept per content key, so a view rebuilt after an edit rereads only what changed; the walk and the
 * reads go in slices.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import fg from 'fast-glob';
import { isTestOrMock, mountedRoutes, mountPrefixes, routeKey, SliceClock, type CodeGraphEngine, type GraphNode, type RouteMount } from '../graph/api.ts';
import type { CrossEdge, FederatedRepo } from './cross-edges.ts';
import { innerRoots, type Owns } from './nested-roots.ts';
import { RouteTable } from './route-table.ts';
import { codeFacts, fileFacts, NO_FACTS, type FileFacts } from './shared-evidence.ts';

/** Files that are no code but carry shared evidence (`.env` keys, protobuf services, OpenAPI documents). */
const EVIDENCE_FILES = ['**/.env', '**/.env.*', '**/*.proto', '**/*{openapi,swagger}*.{yaml,yml,json}'];
const SKIP = ['**/node_modules/**', '**/.git/**', '**/.m1nd/**', '**/target/**', '**/dist/**', '**/build/**', '**/vendor/**', '**/.venv/**'];
/** Evidence files read per repository at most, and their size at most. */
const MAX_EVIDENCE_FILES = 200;
const MAX_FILE_BYTES = 1 << 20;
/** Code files' text the graph holds is read for facts; documentation is not code that requests or serves. */
const NOT_CODE = /\.(?:md|mdx|markdown|rst|txt|adoc)$/i;
const SLICE_MS = 4;

interface Located<T> {
  path: string;
  /** True for a file the graph does not hold (an edge to it stands for the repository's root). */
  outside: boolean;
  fact: T;
}

interface RepoFacts {
  /** Routes as served: joined to the prefixes their routers are mounted under. */
  routes: Located<FileFacts['routes'][number]>[];
  requests: Located<FileFacts['requests'][number]>[];
  tools: Located<FileFacts['tools'][number]>[];
  toolCalls: Located<FileFacts['toolCalls'][number]>[];
  config: Located<FileFacts['config'][number]>[];
  contracts: Located<FileFacts['contracts'][number]>[];
}

/** Routes and requests files hold past the per-file caps, left out of the matching (at least these many), and the first files so cut. */
export interface RoutesCut {
  routes: number;
  requests: number;
  files: string[];
}
/** Files a cut names at most. */
const CUT_FILES_SHOWN = 5;

/** Per engine: a file's facts under the key of the content they were read from. */
const cache = new WeakMap<CodeGraphEngine, Map<string, { key: string; facts: FileFacts }>>();

function cached(engine: CodeGraphEngine, path: string, key: string | null, read: () => FileFacts): FileFacts {
  // A file without a content key is read each time: no stale facts kept under a key that never changes.
  if (key === null) return read();
  let files = cache.get(engine);
  if (!files) cache.set(engine, (files = new Map()));
  const hit = files.get(path);
  if (hit?.key === key) return hit.facts;
  const facts = read();
  files.set(path, { key, facts });
  return facts;
}

async function repoFacts(repo: FederatedRepo, clock: SliceClock, own: (path: string) => boolean, inner: readonly string[], cut: RoutesCut): Promise<RepoFacts> {
  const out: RepoFacts = { routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [] };
  const mounts = new Map<string, RouteMount[]>();
  const take = (path: string, outside: boolean, f: FileFacts) => {
    for (const k of Object.keys(out) as (keyof RepoFacts)[]) for (const fact of f[k]) (out[k] as Located<unknown>[]).push({ path, outside, fact });
    if (f.mounts.length) mounts.set(path, f.mounts);
    if (f.cut) {
      cut.routes += f.cut.routes;
      cut.requests += f.cut.requests;
      if (cut.files.length < CUT_FILES_SHOWN) cut.files.push(`${repo.name}::${path}`);
    }
  };
  const g = repo.engine.graph;
  for (let i = 0; i < g.nodeCapacity; i++) {
    const file = g.node(i);
    if (!file || file.kind !== 'file' || NOT_CODE.test(file.path) || !own(file.path)) continue;
    if (clock.spent()) await clock.yield();
    const key = repo.engine.fileExtractionKey(file.path);
    take(file.path, false, cached(repo.engine, file.path, key === null ? null : `code:${key}`, () => {
      try {
        const f = repo.engine.readFile(file.path);
        return f.size > MAX_FILE_BYTES ? NO_FACTS : codeFacts(file.path, f.content);
      } catch {
        return NO_FACTS;
      }
    }));
  }
  // Another member's folder inside this root is that member's to read.
  const found = await fg(EVIDENCE_FILES, { cwd: repo.root, ignore: [...SKIP, ...inner.map((p) => `${fg.escapePath(p)}**`)], onlyFiles: true, dot: true, followSymbolicLinks: false, deep: 6 });
  for (const path of found.sort().slice(0, MAX_EVIDENCE_FILES)) {
    if (clock.spent()) await clock.yield();
    let stamp: string;
    try {
      const st = statSync(join(repo.root, path));
      if (st.size > MAX_FILE_BYTES) continue;
      stamp = `file:${st.size}:${st.mtimeMs}`;
    } catch {
      continue;
    }
    take(path, true, cached(repo.engine, path, stamp, () => {
      try {
        return fileFacts(path, repo.engine.readFile(path).content);
      } catch {
        return NO_FACTS;
      }
    }));
  }
  if (mounts.size > 0) {
    // A router's routes are served under the prefixes it is mounted at (`app.use('/api', users)`).
    const prefixes = mountPrefixes(mounts, out.routes.map((r) => r.path).concat([...mounts.keys()]));
    const joined = mountedRoutes(out.routes.map((r) => ({ file: r.path, route: r.fact.pattern, receiver: r.fact.receiver, located: r })), prefixes);
    out.routes = joined.map((j) => (j.route === j.located.fact.pattern ? j.located : { ...j.located, fact: { ...j.located.fact, pattern: routeKey(j.route) } }));
  }
  return out;
}

/** A repository's function, method and class nodes by name, for the handler a route registration names (a class: a Django class-based view). */
function callablesByLabel(engine: CodeGraphEngine, own: (path: string) => boolean): Map<string, GraphNode[]> {
  const out = new Map<string, GraphNode[]>();
  const g = engine.graph;
  for (let i = 0; i < g.nodeCapacity; i++) {
    const n = g.node(i);
    if (!n || (n.kind !== 'function' && n.kind !== 'method' && n.kind !== 'class') || !own(n.path)) continue;
    const list = out.get(n.label);
    if (list) list.push(n);
    else out.set(n.label, [n]);
  }
  return out;
}

/** The literal (no parameter) segments of a route pattern. */
const literals = (pattern: string): number => pattern.split('/').filter((s) => s !== '' && s !== '{}').length;

/** The node an edge starts or ends at: the symbol around the line, else the file (a file the graph lacks: its id all the same). */
const at = (repo: FederatedRepo, path: string, line: number, outside: boolean): string => (outside ? `file:${path}` : (repo.engine.symbolAt(path, line)?.id ?? `file:${path}`));

/** The shared-evidence edges between every pair of `repos`, through `add`, from each one's own files; what the per-file caps left out is added to `cut`. */
export async function sharedEdges(repos: readonly FederatedRepo[], add: (e: CrossEdge) => void, owns: Owns, cut: RoutesCut = { routes: 0, requests: 0, files: [] }): Promise<void> {
  const clock = new SliceClock(SLICE_MS);
  const facts: RepoFacts[] = [];
  for (const r of repos) facts.push(await repoFacts(r, clock, (path) => owns(r, path), innerRoots(repos, r), cut));
  /** Per repository: its routes indexed for the requests of the others (built on first use). */
  const tables: RouteTable<RepoFacts['routes'][number]>[] = [];
  for (const [ai, a] of repos.entries()) {
    for (const [bi, b] of repos.entries()) {
      if (a === b) continue;
      const fa = facts[ai];
      const fb = facts[bi];
      const ns = (repo: FederatedRepo, id: string) => `${repo.name}::${id}`;
      const evidence = (path: string, line: number) => `${a.name}::${path}:${line}`;
      let byLabel: Map<string, GraphNode[]> | undefined;
      const handler = (r: Located<FileFacts['routes'][number]>): string => {
        if (r.outside) return `file:${r.path}`;
        if (r.fact.handlerLine) return at(b, r.path, r.fact.handlerLine, false);
        if (r.fact.handler) {
          byLabel ??= callablesByLabel(b.engine, (path) => owns(b, path));
          const named = byLabel.get(r.fact.handler) ?? [];
          const pick = named.find((n) => n.path === r.path) ?? (named.length === 1 ? named[0] : undefined);
          if (pick) return pick.id;
        }
        return at(b, r.path, r.fact.line, false);
      };
      const table = (tables[bi] ??= new RouteTable(fb.routes));
      for (const q of fa.requests) {
        if (clock.spent()) await clock.yield();
        // The most specific route first (`/users/me` before `/users/{}`, as a router dispatches), then code
        // routes (an OpenAPI path the code also serves points at the handler), then the code's own before a test's or mock's.
        // A request whose method is told reaches the routes of that method (or of any) when there are some: `fetch(url, { method: 'POST' })` not the GET handler of its path.
        const method = q.fact.method;
        const fitting = (list: Located<FileFacts['routes'][number]>[]) => {
          const fit = method ? list.filter((r) => !r.fact.method || r.fact.method === method) : list;
          return fit.length ? fit : list;
        };
        let served = fitting(table.serving(q.fact.pattern))
          .sort((x, y) => literals(y.fact.pattern) - literals(x.fact.pattern) || Number(x.outside) - Number(y.outside) || Number(isTestOrMock(x.path)) - Number(isTestOrMock(y.path)));
        // None served as requested: a route of a router mounted under a prefix, when exactly one matches the tail.
        if (served.length === 0) {
          const mounted = fitting(table.servingTail(q.fact.pattern));
          if (mounted.length === 1) served = mounted;
        }
        if (served.length) add({ source: ns(a, at(a, q.path, q.fact.line, q.outside)), target: ns(b, handler(served[0])), relation: 'http_route', evidence: evidence(q.path, q.fact.line) });
      }
      for (const c of fa.toolCalls) {
        const tool = fb.tools.find((t) => t.fact.key === c.fact.key);
        if (tool) add({ source: ns(a, at(a, c.path, c.fact.line, c.outside)), target: ns(b, at(b, tool.path, tool.fact.line, tool.outside)), relation: 'contract', evidence: evidence(c.path, c.fact.line) });
      }
      // Symmetric evidence once per pair.
      if (ai > bi) continue;
      for (const c of fa.contracts) {
        const same = fb.contracts.find((d) => d.fact.key === c.fact.key);
        if (same) add({ source: ns(a, `file:${c.path}`), target: ns(b, `file:${same.path}`), relation: 'contract', evidence: evidence(c.path, c.fact.line) });
      }
      const first = new Map<string, Located<FileFacts['config'][number]>>();
      for (const k of fb.config) if (!first.has(k.fact.key) || (first.get(k.fact.key)!.outside && !k.outside)) first.set(k.fact.key, k);
      const done = new Set<string>();
      for (const k of [...fa.config].sort((x, y) => Number(x.outside) - Number(y.outside))) {
        const other = first.get(k.fact.key);
        if (!other || done.has(k.fact.key)) continue;
        done.add(k.fact.key);
        add({ source: ns(a, at(a, k.path, k.fact.line, k.outside)), target: ns(b, at(b, other.path, other.fact.line, other.outside)), relation: 'config_key', evidence: evidence(k.path, k.fact.line) });
      }
    }
  }
}
