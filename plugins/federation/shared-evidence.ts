/**
 * What one file says that another repository can share without a package dependency, read from its
 * text: the HTTP routes it serves (Express/Koa/Fastify/Hono-style `x.get('/path', handler)`, Go's
 * `HandleFunc`, Python route decorators, Spring mappings with the class's prefix), the URLs it
 * requests (`fetch`, axios/ky/got/superagent, `requests`/`httpx`/sessions and clients, Go's
 * `http.Get`, Spring's RestTemplate), the MCP tools it registers or calls, the configuration keys it
 * reads (environment variables, `.env` keys), and the contracts it declares (protobuf services,
 * OpenAPI documents, whose paths are routes too). Pure functions over text; cross-edges.ts pairs
 * the facts of two repositories.
 */
import { parse as parseYaml } from 'yaml';

export interface RouteFact {
  /** The route as a pattern: segments, a parameter as `{}` (`/api/users/{}`). */
  pattern: string;
  line: number;
  /** The handler a registration names (`getOrder`, `handlers.getOrder` → getOrder), or the line the decorated function starts on. */
  handler?: string;
  handlerLine?: number;
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
}

export const NO_FACTS: FileFacts = Object.freeze({ routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [] }) as FileFacts;

/** Facts kept per file at most (a generated file of thousands of routes stays bounded). */
const MAX_PER_KIND = 200;

/** Environment variables every program may read: sharing one says nothing about two repositories. */
const GENERIC_KEYS = new Set(
  'PATH HOME USER USERNAME SHELL PWD TMPDIR TEMP TMP LANG TERM NODE_ENV ENV ENVIRONMENT DEBUG PORT HOST HOSTNAME LOG_LEVEL LOGLEVEL CI TZ PYTHONPATH GOPATH GOOS GOARCH GOFLAGS RUST_LOG RUST_BACKTRACE JAVA_HOME VERBOSE NO_COLOR FORCE_COLOR COLUMNS LINES EDITOR HTTP_PROXY HTTPS_PROXY NO_PROXY ALL_PROXY SSL_CERT_FILE NODE_OPTIONS APPDATA USERPROFILE SYSTEMROOT COMSPEC'.split(' '),
);
const GENERIC_PREFIX = /^(?:XDG_|LC_|NPM_|GITHUB_|RUNNER_|GIT_|PYTHON|CARGO_|NODE_|VSCODE_|TERM_)/;

/** Whether a configuration key is specific enough to tie two repositories (`PAYMENTS_URL`, not `PORT`). */
export function specificKey(key: string): boolean {
  return !GENERIC_KEYS.has(key) && !GENERIC_PREFIX.test(key) && (key.includes('_') ? key.length >= 5 : key.length >= 8);
}

/**
 * A route or URL as a pattern: scheme and host, query and fragment dropped; `:id`, `{id}`,
 * `{id:int}`, `<int:id>`, `*` and interpolations (`${id}`, `{id}`, `%s`) made `{}`. Null when what is
 * left is no absolute path.
 */
export function routePattern(text: string): string | null {
  let t = text.trim();
  t = t.replace(/^https?:\/\/[^/]*/i, '');
  // A leading interpolation is a base URL (`${API}/users`, `{base}/users`, `%s/users`).
  t = t.replace(/^(?:\$\{[^}]*\}|\{[^}]*\}|%[sv])+/, '');
  t = t.replace(/[?#].*$/, '');
  if (!t.startsWith('/')) return null;
  const segments = t
    .split('/')
    .slice(1)
    .map((s) => (/^(?::\w+|\{[^}]*\}|<[^>]*>|\*|\$\{[^}]*\}|%[sdv])$/.test(s) || /\$\{|\{[^}]*\}|%[sdv]/.test(s) ? '{}' : s));
  while (segments.length && segments[segments.length - 1] === '') segments.pop();
  if (segments.some((s) => s === '' || /[\s"'`]/.test(s))) return null;
  return `/${segments.join('/')}`;
}

/** Whether a requested pattern reaches a served one: same segment count, every literal segment equal, one at least. */
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

const lineAt = (starts: number[], index: number) => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
};

/** Receivers whose `get('/x')` is a request, not a registration. */
const CLIENTS = /^(?:axios|ky|got|superagent|request|requests|httpx|session|sess|client|httpClient|http|\$http|api|apiClient|restTemplate|webClient)$/;
const METHODS = 'get|post|put|patch|delete|head|options|all|route|Get|Post|Put|Patch|Delete|GET|POST|PUT|PATCH|DELETE|HandleFunc|Handle|handle|handleFunc';
/** `recv.method(<literal>` with the literal's quote, text and the rest of the line. */
const CALL_WITH_PATH = new RegExp(`(?:\\b|\\$)([A-Za-z_$][\\w$]*)\\.(${METHODS}|request|getForObject|getForEntity|postForObject|postForEntity|exchange)\\(\\s*(f?)(["'\`])([^"'\`\\n]*)\\4([^\\n]*)`, 'g');
const FETCH = /\bfetch\(\s*(["'`])([^"'`\n]*)\1([^\n]*)/g;
const PY_DECORATOR = /^[ \t]*@([\w.]+)\.(get|post|put|patch|delete|head|options|route|api_route|websocket)\(\s*(["'])([^"'\n]*)\3/gm;
const SPRING = /@(Get|Post|Put|Delete|Patch|Request)Mapping\(\s*(?:(?:value|path)\s*=\s*)?\{?\s*"([^"\n]*)"/g;
const ENV_READS = [
  /\bprocess\.env\.([A-Z][A-Z0-9_]+)/g,
  /\bprocess\.env\[\s*["'`]([A-Z][A-Z0-9_]+)["'`]\s*\]/g,
  /\bimport\.meta\.env\.([A-Z][A-Z0-9_]+)/g,
  /\bos\.environ(?:\.get)?\s*[[(]\s*["']([A-Z][A-Z0-9_]+)["']/g,
  /\b(?:os\.getenv|getenv|os\.Getenv|os\.LookupEnv|System\.getenv|env::var(?:_os)?|env!|option_env!|std::env::var)\(\s*["']([A-Z][A-Z0-9_]+)["']/g,
];
const TOOL_REGISTER = [/\.(?:tool|registerTool|addTool)\(\s*["'`]([\w.-]+)["'`]/g, /^[ \t]*@[\w.]+\.tool\(\s*(?:name\s*=\s*)?["']([\w.-]+)["']/gm];
const TOOL_CALL = [/\bcallTool\(\s*\{\s*name:\s*["'`]([\w.-]+)["'`]/g, /\bcall_tool\(\s*["']([\w.-]+)["']/g];

/** The requested URL of a call's first argument: the literal, and `+ x` after a literal ending in `/` is one more segment. */
function requested(literal: string, rest: string): string | null {
  const concat = /^\s*\+/.test(rest) && literal.endsWith('/');
  return routePattern(concat ? `${literal}{}` : literal);
}

/** The handler a registration's remaining arguments name: the last bare identifier (`auth, getOrder)` → getOrder), else none (an inline function). */
function handlerName(rest: string): string | undefined {
  const args = rest.replace(/^\s*,/, '').split(')')[0];
  const names = args.split(',').map((a) => a.trim()).filter((a) => /^[A-Za-z_$][\w$.]*$/.test(a));
  return names.length ? names[names.length - 1].split('.').pop() : undefined;
}

/** The facts of a code file's text. */
export function codeFacts(text: string): FileFacts {
  if (text.length > 2_000_000) return NO_FACTS;
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const lines = text.split('\n');
  const facts: FileFacts = { routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [] };
  const push = <T>(list: T[], x: T) => void (list.length < MAX_PER_KIND && list.push(x));
  for (const m of text.matchAll(CALL_WITH_PATH)) {
    const [, recv, method, , , literal, rest] = m;
    const line = lineAt(starts, m.index!);
    if (CLIENTS.test(recv) && !/^(?:HandleFunc|Handle|handle|handleFunc|route|all)$/.test(method)) {
      const p = requested(literal, rest);
      if (p) push(facts.requests, { pattern: p, line });
    } else if (/^\s*,\s*\S/.test(rest) && !/For(?:Object|Entity)$|^exchange$|^request$/.test(method)) {
      const p = routePattern(literal);
      if (p && literal.startsWith('/')) push(facts.routes, { pattern: p, line, handler: handlerName(rest) });
    }
  }
  for (const m of text.matchAll(FETCH)) {
    const p = requested(m[2], m[3]);
    if (p) push(facts.requests, { pattern: p, line: lineAt(starts, m.index!) });
  }
  for (const m of text.matchAll(PY_DECORATOR)) {
    const p = routePattern(m[4]);
    const line = lineAt(starts, m.index! + m[0].length - m[0].trimStart().length);
    const def = lines.findIndex((l, i) => i >= line && /^\s*(?:async\s+)?def\s/.test(l));
    if (p && m[4].startsWith('/')) push(facts.routes, { pattern: p, line, ...(def >= 0 ? { handlerLine: def + 1 } : {}) });
  }
  let prefix = '';
  for (const m of text.matchAll(SPRING)) {
    const line = lineAt(starts, m.index!);
    // A mapping followed by a class declaration (before any method) is the class's prefix.
    const next = lines.slice(line, line + 6).find((l) => !/^\s*@/.test(l) && l.trim() !== '') ?? '';
    if (/\b(?:class|interface)\s/.test(next)) {
      prefix = m[2].replace(/\/+$/, '');
      continue;
    }
    const p = routePattern(`${prefix}${m[2].startsWith('/') || m[2] === '' ? '' : '/'}${m[2]}`);
    const method = lines.findIndex((l, i) => i >= line && !/^\s*@/.test(l) && /\(/.test(l));
    if (p) push(facts.routes, { pattern: p, line, ...(method >= 0 ? { handlerLine: method + 1 } : {}) });
  }
  for (const re of ENV_READS) {
    for (const m of text.matchAll(re)) if (specificKey(m[1])) push(facts.config, { key: m[1], line: lineAt(starts, m.index!) });
  }
  for (const re of TOOL_REGISTER) {
    for (const m of text.matchAll(re)) {
      const line = lineAt(starts, m.index! + m[0].indexOf(m[1]));
      // A decorator registers the function below it.
      const def = m[0].trimStart().startsWith('@') ? lines.findIndex((l, i) => i >= line && /^\s*(?:async\s+)?def\s/.test(l)) : -1;
      push(facts.tools, { key: m[1], line: def >= 0 ? def + 1 : line });
    }
  }
  for (const re of TOOL_CALL) for (const m of text.matchAll(re)) push(facts.toolCalls, { key: m[1], line: lineAt(starts, m.index!) });
  return facts;
}

/** The facts of a file that is no code: a `.env` file's keys, a protobuf file's services, an OpenAPI document's title and paths. */
export function fileFacts(path: string, text: string): FileFacts {
  const facts: FileFacts = { routes: [], requests: [], tools: [], toolCalls: [], config: [], contracts: [] };
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
      const p = routePattern(route);
      const at = lines.findIndex((l) => l.includes(`${route}`));
      if (p) facts.routes.push({ pattern: p, line: at + 1 || 1 });
    }
  }
  return facts;
}
