/**
 * Spans to graph nodes, strongest evidence first: `code.filepath` + `code.lineno` (the innermost
 * symbol at that line), `code.filepath` + `code.function` (that name in that file), `code.function`
 * (+ `code.namespace`) alone when exactly one symbol has it, then the HTTP route (`http.route`, or a
 * span named `GET /orders/:id`) as registered in the code (route-index.ts), then the span name as a
 * symbol name (`Cart.checkout`, `checkout`) when exactly one symbol has it. A file path from another
 * machine (`/srv/app/src/cart.ts`) maps to the workspace file with the longest matching suffix. When
 * `code.filepath` names a file the workspace lacks, a name matches only a symbol unique in the whole
 * graph, and its `via` says `file not found`; a file found confines names to that file.
 */
import { readFileSync } from 'node:fs';
import { isTestOrMock, routeKey, SliceClock, symbolIndex, type CodeGraphEngine, type GraphNode, type RouteRegistration } from '../graph/api.ts';
import type { SpanFacts } from './otlp.ts';
import { routeIndex, spanRoute, type RouteIndex } from './route-index.ts';

export type Strategy = 'auto' | 'code_attributes' | 'label_match';
export type Via = 'code_lineno' | 'code_function_in_file' | 'code_function' | 'code_function, file not found' | 'http_route' | 'span_name' | 'span_name, file not found';

/** Main-thread time between yields while the file index is built. */
const SLICE_MS = 8;
/** Segments of a route's tail matched against the routes of a router mounted under a prefix, at most. */
const MAX_TAIL_SEGMENTS = 32;
/** Characters of a span's value a reason quotes at most. */
const SHOWN_CHARS = 160;

/** A span's value as a reason quotes it: cut to SHOWN_CHARS (a 200 KB http.route was echoed whole, once per distinct value, into the answer). */
const shown = (value: string): string => (value.length > SHOWN_CHARS ? `${value.slice(0, SHOWN_CHARS)}… (${value.length} characters)` : value);

/**
 * A Go runtime function name as symbols name it: a method's receiver `(*FlagSet)` / `(FlagSet)` /
 * `(*List[...])` is its type `FlagSet` (`github.com/spf13/pflag.(*FlagSet).Parse` →
 * `github.com/spf13/pflag.FlagSet.Parse`).
 * Read as it was, the receiver was no part of a qualified name and a method's span went to a
 * package function of the same name.
 */
export function goRuntimeName(name: string): string {
  return name.replace(/\(\*?([A-Za-z_]\w*)(?:\[[^\]()]*\])?\)/g, '$1');
}

/** A Go closure's suffix (`.func1`, `.func1.2`), sought in a name's last 64 characters: tried away only when the whole name names nothing (a symbol may be called func1). */
const OVERLOAD_RANK = /#\d+$/;
const GO_CLOSURE = /\.func\d+(?:\.\d+)*$/;
const goClosureAt = (name: string): number => {
  const tail = name.slice(-64);
  const m = GO_CLOSURE.exec(tail);
  return m ? name.length - tail.length + m.index : -1;
};

/** A line that starts a decorator or attribute (`@property`, `@app.get(…)`, Rust `#[instrument]`). */
const DECORATOR_LINE = /^\s*(?:@|#\[)/;
/** Lines a definition's decorators span at most, and the largest file read for them. */
const MAX_DECORATOR_LINES = 40;
const MAX_DECORATED_FILE_BYTES = 4 * 1024 * 1024;

/** Opening minus closing brackets on a line. */
function bracketDepth(line: string): number {
  let d = 0;
  for (const ch of line) {
    if (ch === '(' || ch === '[' || ch === '{') d++;
    else if (ch === ')' || ch === ']' || ch === '}') d--;
  }
  return d;
}

export interface SpanMapper {
  map(span: SpanFacts): { node: GraphNode; via: Via } | { node: null; reason: string };
  /** The routes read from the code, when a span had a route to match. */
  routes?: RouteIndex;
}

/** Whether the strategy matches a span's route (auto and label_match; code_attributes reads code.* only). */
export const matchesRoutes = (strategy: Strategy) => strategy !== 'code_attributes';

/** A mapper over the engine's current graph (indexes built in slices that yield; routes read only when `withRoutes`). */
export async function spanMapper(engine: CodeGraphEngine, strategy: Strategy, withRoutes = false): Promise<SpanMapper> {
  const g = engine.graph;
  const symbols = await symbolIndex(g);
  const files: string[] = [];
  const bySuffix = new Map<string, string[]>();
  const clock = new SliceClock(SLICE_MS);
  for (let i = 0; i < g.nodeCapacity; i++) {
    if (clock.spent()) await clock.yield();
    const n = g.node(i);
    if (n?.kind !== 'file') continue;
    files.push(n.path);
    const base = n.path.slice(n.path.lastIndexOf('/') + 1);
    const list = bySuffix.get(base);
    if (list) list.push(n.path);
    else bySuffix.set(base, [n.path]);
  }
  const root = engine.resolvePath('.').absolute.replace(/\\/g, '/');
  const fileOf = (raw: string): string | null => {
    let p = raw.replace(/\\/g, '/').replace(/^file:\/\//, '');
    if (p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
    if (g.get(`file:${p}`)) return p;
    // Longest suffix of whole segments shared with a workspace file.
    const candidates = bySuffix.get(p.slice(p.lastIndexOf('/') + 1)) ?? [];
    let best: string | null = null;
    let bestLen = 0;
    let tie = false;
    for (const c of candidates) {
      const a = p.split('/').reverse();
      const b = c.split('/').reverse();
      let k = 0;
      while (k < a.length && k < b.length && a[k] === b[k]) k++;
      if (k > bestLen) [best, bestLen, tie] = [c, k, false];
      else if (k === bestLen) tie = true;
    }
    return tie ? null : best;
  };
  const byName = (name: string, namespace?: string, file?: string): readonly GraphNode[] => {
    const go = goRuntimeName(name);
    const found = lookup(go, namespace, file);
    const closure = found.length === 0 ? goClosureAt(go) : -1;
    return closure > 0 ? lookup(go.slice(0, closure), namespace, file) : found;
  };
  const lookup = (name: string, namespace?: string, file?: string): readonly GraphNode[] => {
    const dotted = name.replace(/::|#/g, '.');
    const last = dotted.slice(dotted.lastIndexOf('.') + 1);
    let nodes: readonly GraphNode[] = symbols.labelled(last);
    if (file) nodes = nodes.filter((n) => n.path === file);
    const qualified = namespace ? `${goRuntimeName(namespace).replace(/::|#|\//g, '.')}.${dotted}` : dotted;
    if (qualified !== last) {
      // Either side may carry more of the path: a node `Cart.checkout` and a namespace `app.cart.Cart`
      // (Python and Java instrumentations name the module), or the reverse. The longest match wins.
      const within = (a: string, b: string) => a === b || a.endsWith(`.${b}`);
      // An overload's qualified name carries its rank (`Gson.toJson#2`): every overload is the name's.
      const qn = (n: GraphNode) => n.qualifiedName?.replace(OVERLOAD_RANK, '');
      const q = nodes.filter((n) => {
        const name = qn(n);
        return name !== undefined && (within(name, qualified) || within(qualified, name) || (namespace !== undefined && name === dotted));
      });
      const longest = Math.max(0, ...q.map((n) => qn(n)!.length));
      const best = q.filter((n) => qn(n)!.length === longest || within(qn(n)!, qualified));
      if (best.length || !namespace) nodes = best;
    }
    return nodes;
  };
  // A file's lines, read once per call and only for a code.lineno on a decorator line.
  const texts = new Map<string, string[] | null>();
  const linesOf = (file: string): string[] | null => {
    let lines = texts.get(file);
    if (lines === undefined) {
      try {
        const bytes = readFileSync(engine.resolvePath(file).absolute);
        lines = bytes.length <= MAX_DECORATED_FILE_BYTES ? bytes.toString('utf8').split(/\r?\n/) : null;
      } catch {
        lines = null;
      }
      texts.set(file, lines);
    }
    return lines;
  };
  /**
   * The symbol whose decorators hold `line` (1-based): Python's code.lineno is the function's
   * co_firstlineno, its first decorator's line, while the graph starts a decorated function (as Rust
   * an attributed one) at its `def`, so the line fell in the class around it. Decorators, one a line
   * or one over several (brackets open), are walked down to the definition they decorate.
   */
  const decoratedAt = (file: string, line: number): GraphNode | null => {
    const lines = linesOf(file);
    if (!lines || !DECORATOR_LINE.test(lines[line - 1] ?? '')) return null;
    let k = line - 1;
    let depth = 0;
    for (; k < lines.length && k < line - 1 + MAX_DECORATOR_LINES; k++) {
      if (depth === 0 && !DECORATOR_LINE.test(lines[k])) break;
      depth = Math.max(0, depth + bracketDepth(lines[k]));
    }
    const n = engine.symbolAt(file, k + 1);
    return n && n.kind !== 'file' && n.startLine === k + 1 ? n : null;
  };
  const routes = withRoutes && matchesRoutes(strategy) ? await routeIndex(engine, files) : undefined;
  const importedFiles = (file: string): Set<string> => new Set(g.outgoing(`file:${file}`, 'imports').map((e) => g.get(e.target)?.path ?? ''));
  /**
   * The node a registration's handler is: the decorated function, the named handler (this file, an
   * imported one, a Go package's), else the enclosing symbol — `weak` when a named handler was not
   * found (perhaps no handler at all: `http.get('/x', options)`), so a found one elsewhere wins.
   */
  const handlerOf = (r: RouteRegistration): { node: GraphNode; weak: boolean } | null => {
    if (r.decorated) {
      const n = engine.symbolAt(r.file, r.line);
      return n ? { node: n, weak: false } : null;
    }
    if (r.handler) {
      // A class too: a Django class-based view (`views.Detail.as_view()`).
      const named = symbols.labelled(r.handler).filter((n) => n.kind === 'function' || n.kind === 'method' || n.kind === 'class');
      const dir = r.file.slice(0, r.file.lastIndexOf('/') + 1);
      const here = named.filter((n) => n.path === r.file);
      const imported = here.length ? here : named.filter((n) => importedFiles(r.file).has(n.path));
      const sibling = imported.length || !r.file.endsWith('.go') ? imported : named.filter((n) => n.path.startsWith(dir) && !n.path.slice(dir.length).includes('/'));
      if (sibling.length === 1) return { node: sibling[0], weak: false };
    }
    const enclosing = engine.symbolAt(r.file, r.line) ?? g.get(`file:${r.file}`) ?? null;
    return enclosing ? { node: enclosing, weak: r.handler !== undefined } : null;
  };
  // Spans of one route repeat: each route and method is resolved once per call.
  const routeResults = new Map<string, { node: GraphNode } | { reason: string }>();
  const byRoute = (route: string, method: string | undefined): { node: GraphNode } | { reason: string } => {
    const memo = `${method ?? ''} ${route}`;
    let result = routeResults.get(memo);
    if (!result) routeResults.set(memo, (result = resolveRoute(route, method)));
    return result;
  };
  const resolveRoute = (route: string, method: string | undefined): { node: GraphNode } | { reason: string } => {
    const key = routeKey(route);
    let regs = routes!.byKey.get(key) ?? [];
    if (!regs.length) {
      // A router mounted under a prefix (`app.use('/api', router)`): the registration ends the route.
      // Each tail of whole segments is looked up (up to MAX_TAIL_SEGMENTS), not every registered route
      // compared (100,000 distinct span routes against 4,000 registrations took 6.7 s).
      let at = key.length;
      for (let n = 0; n < MAX_TAIL_SEGMENTS && (at = key.lastIndexOf('/', at - 1)) > 0; n++) {
        const list = routes!.byKey.get(key.slice(at));
        if (list) regs = regs.concat(list);
      }
    }
    if (method) regs = regs.filter((r) => r.method === null || r.method === method);
    // A test's or mock's registration of the route yields to the code's own (a test server's handler made two).
    const served = regs.filter((r) => !isTestOrMock(r.file));
    if (served.length) regs = served;
    const strong = new Map<string, GraphNode>();
    const weak = new Map<string, GraphNode>();
    for (const r of regs) {
      const h = handlerOf(r);
      if (h) (h.weak ? weak : strong).set(h.node.id, h.node);
    }
    const nodes = strong.size ? strong : weak;
    if (nodes.size === 1) return { node: [...nodes.values()][0] };
    if (nodes.size > 1) return { reason: `http.route ${shown(route)} is registered for ${nodes.size} handlers (${regs.slice(0, 3).map((r) => `${r.file}:${r.line}`).join(', ')}); add code.* attributes` };
    return { reason: `http.route ${shown(route)}${method ? ` (${shown(method)})` : ''} matches no route registered in the workspace's code` };
  };
  return {
    routes,
    map(span) {
      let reason: string | undefined;
      // A code.filepath the workspace lacks: names may match only a symbol unique in the graph, flagged.
      let fileMissing = false;
      let fileFound = false;
      if (strategy !== 'label_match') {
        const file = span.filepath ? fileOf(span.filepath) : null;
        fileMissing = Boolean(span.filepath && !file);
        if (file && span.lineno) {
          const n = engine.symbolAt(file, span.lineno);
          const decorated = n?.kind === 'function' || n?.kind === 'method' ? null : decoratedAt(file, span.lineno);
          if (decorated) return { node: decorated, via: 'code_lineno' };
          if (n && n.kind !== 'file') return { node: n, via: 'code_lineno' };
          if (!span.function) reason = `code.lineno ${span.lineno} of ${file} is in no symbol`;
        }
        if (file && span.function) {
          const nodes = byName(span.function, span.namespace, file);
          if (nodes.length === 1) return { node: nodes[0], via: 'code_function_in_file' };
          if (nodes.length > 1) return { node: null, reason: `code.function ${shown(span.function)} names ${nodes.length} symbols in ${file}; add code.namespace or code.lineno` };
          reason = `code.function ${shown(span.function)} names no symbol in ${file}`;
        } else if (span.function) {
          const nodes = byName(span.function, span.namespace);
          if (nodes.length === 1) return { node: nodes[0], via: fileMissing ? 'code_function, file not found' : 'code_function' };
          if (nodes.length > 1) reason = fileMissing ? `code.filepath ${shown(span.filepath!)} matches no workspace file, and code.function ${shown(span.function)} names ${nodes.length} symbols` : `code.function ${shown(span.function)} names ${nodes.length} symbols; add ${span.namespace ? 'code.filepath and code.lineno' : 'code.filepath or code.namespace'}`;
          else reason = `code.function ${shown(span.function)} names no symbol`;
        }
        if (fileMissing) reason ??= `code.filepath ${shown(span.filepath!)} matches no workspace file`;
        // A file found is authoritative: its span is not credited to a same-named symbol elsewhere.
        if (file) reason ??= `code.filepath ${file} given without code.lineno or code.function`;
        fileFound = file !== null;
        if (strategy === 'code_attributes') return { node: null, reason: reason ?? 'no code.* attributes' };
      }
      const route = routes ? spanRoute(span) : null;
      if (route) {
        const r = byRoute(route.route, route.method);
        if ('node' in r) return { node: r.node, via: 'http_route' };
        reason ??= r.reason;
      }
      if (!fileFound && /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*$/.test(span.name)) {
        const nodes = byName(span.name);
        if (nodes.length === 1) return { node: nodes[0], via: fileMissing ? 'span_name, file not found' : 'span_name' };
        if (nodes.length > 1) reason ??= `span name ${shown(span.name)} names ${nodes.length} symbols`;
      }
      return { node: null, reason: reason ?? (strategy === 'label_match' ? 'the span name is no symbol and no route' : 'no code.* attributes and the span name is no symbol') };
    },
  };
}
