/**
 * What one file says that another repository can share without a package dependency, read from its
 * text: the HTTP routes it serves and the URLs it requests (the graph's reading of routes,
 * plugins/graph/http-routes.ts), the MCP tools it registers or calls, the configuration keys it
 * reads (environment variables, `.env` keys), and the contracts it declares (protobuf services,
 * OpenAPI documents, whose paths are routes too). Pure functions over text; cross-edges.ts pairs
 * the facts of two repositories.
 */
import { parse as parseYaml } from 'yaml';
import { indexLines, lineAt, mountsIn, nextMatchFinder, requestsIn, routeKey, routesIn, type RouteMount } from '../graph/api.ts';

export interface RouteFact {
  /** The route as a pattern: segments, a parameter as `{}` (`/api/users/{}`). */
  pattern: string;
  line: number;
  /** The handler a registration names (`getOrder`, `handlers.getOrder` → getOrder), or the line the decorated function starts on. */
  handler?: string;
  handlerLine?: number;
  /** The object registering it (`router.get(…)`), which a mount in the same file may prefix. */
  receiver?: string;
  /** Upper-case method of a registration (none: any) or of a request (none: not told). */
  method?: string;
}

export interface KeyFact {
  key: string;
  line: number;
}

export interface FileFacts {
  routes: RouteFact[];
  requests: RouteFact[];
  /** MCP tools registered and called. */
  tools: KeyFact[];
  toolCalls: KeyFact[];
  config: KeyFact[];
  /** Contracts declared: `proto:<package>.<Service>`, `openapi:<title>`. */
  contracts: KeyFact[];
  /** Routers this file mounts under a prefix (joined to their routes over the repository). */
  mounts: RouteMount[];
  /** Routes and requests the file holds past the caps, left out (at least these many). */
  cut?: { routes: number; requests: number };
}

export const NO_FACTS: FileFacts = Object.freeze({ routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [], mounts: [] }) as FileFacts;

/** Facts kept per file at most (a generated file of thousands of routes stays bounded). */
export const MAX_PER_KIND = 200;

/** Environment variables every program may read: sharing one says nothing about two repositories. */
const GENERIC_KEYS = new Set(
  'PATH HOME USER USERNAME SHELL PWD TMPDIR TEMP TMP LANG TERM NODE_ENV ENV ENVIRONMENT DEBUG PORT HOST HOSTNAME LOG_LEVEL LOGLEVEL CI TZ PYTHONPATH GOPATH GOOS GOARCH GOFLAGS RUST_LOG RUST_BACKTRACE JAVA_HOME VERBOSE NO_COLOR FORCE_COLOR COLUMNS LINES EDITOR HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY SSL_CERT_FILE NODE_OPTIONS APPDATA USERPROFILE SYSTEMROOT COMSPEC'.split(' '),
);
const GENERIC_PREFIX = /^(?:XDG_|LC_|NPM_|GITHUB_|RUNNER_|GIT_|PYTHON|CARGO_|NODE_|VSCODE_|TERM_)/;

/** Whether a configuration key is specific enough to tie two repositories (`PAYMENTS_URL`, not `PORT`). */
export function specificKey(key: string): boolean {
  return !GENERIC_KEYS.has(key) && !GENERIC_PREFIX.test(key) && (key.includes('_') ? key.length >= 5 : key.length >= 8);
}

const ENV_READS = [
  /\bprocess\.env\.([A-Z][A-Z0-9_]+)/g,
  /\bprocess\.env\[\s*["'`]([A-Z][A-Z0-9_]+)["'`]\s*\]/g,
  /\bimport\.meta\.env\.([A-Z][A-Z0-9_]+)/g,
  /\bos\.environ(?:\.get)?\s*[[(]\s*["']([A-Z][A-Z0-9_]+)["']/g,
  /\b(?:os\.getenv|getenv|os\.Getenv|os\.LookupEnv|System\.getenv|env::var(?:_os)?|env!|option_env!|std::env::var)\(\s*["']([A-Z][A-Z0-9_]+)["']/g,
];
const TOOL_REGISTER = [/\.(?:tool|registerTool|addTool)\(\s*["'`]([\w.-]+)["'`]/g, /^[ \t]*@[\w.]+\.tool\(\s*(?:name\s*=\s*)?["']([\w.-]+)["']/gm];
const TOOL_CALL = [/\bcallTool\(\s*\{\s*name:\s*["'`]([\w.-]+)["'`]/g, /\bcall_tool\(\s*["']([\w.-]+)["']/g];

/** The facts of a code file's text. */
export function codeFacts(path: string, text: string): FileFacts {
  if (text.length > 2_000_000) return NO_FACTS;
  // Most files hold none of these facts: the line index is built on the first match.
  let starts: ReturnType<typeof indexLines> | undefined;
  const lineOf = (index: number) => lineAt((starts ??= indexLines(text)), index);
  const facts: FileFacts = { routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [], mounts: [] };
  const push = <T>(list: T[], x: T) => void (list.length < MAX_PER_KIND && list.push(x));
  // What the caps leave out is counted, for the answer to say (a generated router's routes were cut silently).
  const routesCut = { cut: 0 };
  const requestsCut = { cut: 0 };
  for (const r of routesIn(path, text, routesCut)) {
    const pattern = routeKey(r.route);
    if (pattern === '/') continue;
    if (facts.routes.length >= MAX_PER_KIND) routesCut.cut++;
    else facts.routes.push({ pattern, line: r.line, ...(r.decorated ? { handlerLine: r.line } : r.handler ? { handler: r.handler } : {}), ...(r.receiver ? { receiver: r.receiver } : {}), ...(r.method ? { method: r.method } : {}) });
  }
  for (const m of mountsIn(path, text)) push(facts.mounts, m);
  for (const q of requestsIn(text, path, requestsCut)) {
    if (facts.requests.length >= MAX_PER_KIND) requestsCut.cut++;
    else facts.requests.push({ pattern: q.key, line: q.line, ...(q.method ? { method: q.method } : {}) });
  }
  if (routesCut.cut || requestsCut.cut) facts.cut = { routes: routesCut.cut, requests: requestsCut.cut };
  for (const re of ENV_READS) {
    for (const m of text.matchAll(re)) {
      if (facts.config.length >= MAX_PER_KIND) break;
      if (specificKey(m[1])) push(facts.config, { key: m[1], line: lineOf(m.index!) });
    }
  }
  for (const re of TOOL_REGISTER) {
    // The next `def` from a point on, the text read once for all the decorators (not to its end for each).
    const nextDef = nextMatchFinder(text, /^[ \t]*(?:async[ \t]+)?def\s/gm);
    for (const m of text.matchAll(re)) {
      if (facts.tools.length >= MAX_PER_KIND) break;
      const at = m.index! + m[0].indexOf(m[1]);
      // A decorator registers the function below it (the first `def` after it).
      const def = m[0].trimStart().startsWith('@') ? nextDef(m.index! + m[0].length) : null;
      push(facts.tools, { key: m[1], line: lineOf(def ? def.index + def[0].length - 1 : at) });
    }
  }
  for (const re of TOOL_CALL) {
    for (const m of text.matchAll(re)) {
      if (facts.toolCalls.length >= MAX_PER_KIND) break;
      push(facts.toolCalls, { key: m[1], line: lineOf(m.index!) });
    }
  }
  return facts;
}

/** The facts of a file that is no code: a `.env` file's keys, a protobuf file's services, an OpenAPI document's title and paths. */
export function fileFacts(path: string, text: string): FileFacts {
  const facts: FileFacts = { routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [], mounts: [] };
  const lines = text.split('\n');
  const base = path.split('/').pop()!;
  if (/^\.env(?:\..+)?$/.test(base)) {
    lines.forEach((l, i) => {
      const m = /^\s*(?:export\s+)?([A-Z][A-Z0-9_]+)\s*=/.exec(l);
      if (m && specificKey(m[1]) && facts.config.length < MAX_PER_KIND) facts.config.push({ key: m[1], line: i + 1 });
    });
  } else if (base.endsWith('.proto')) {
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
    lines.forEach((l, i) => {
      const m = /^\s*service\s+(\w+)/.exec(l);
      if (m && facts.contracts.length < MAX_PER_KIND) facts.contracts.push({ key: `proto:${pkg ? `${pkg}.` : ''}${m[1]}`, line: i + 1 });
    });
  } else if (/\.(?:ya?ml|json)$/i.test(base)) {
    let doc: unknown;
    try {
      doc = base.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
    } catch {
      return facts;
    }
    const d = doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
    if (typeof d.openapi !== 'string' && typeof d.swagger !== 'string') return facts;
    const title = (d.info as Record<string, unknown> | undefined)?.title;
    if (typeof title === 'string' && title.trim()) {
      const at = lines.findIndex((l) => /^\s*"?title"?\s*:/.test(l));
      facts.contracts.push({ key: `openapi:${title.trim()}`, line: at + 1 || 1 });
    }
    for (const route of Object.keys((d.paths as Record<string, unknown>) ?? {}).slice(0, MAX_PER_KIND)) {
      const at = lines.findIndex((l) => l.includes(route));
      if (route.startsWith('/') && routeKey(route) !== '/') facts.routes.push({ pattern: routeKey(route), line: at + 1 || 1 });
    }
  }
  return facts;
}
