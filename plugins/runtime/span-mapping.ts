/**
 * Spans to graph nodes, strongest evidence first: `code.filepath` + `code.lineno` (the innermost
 * symbol at that line), `code.filepath` + `code.function` (that name in that file), `code.function`
 * (+ `code.namespace`) alone when exactly one symbol has it, then the span name as a symbol name
 * (`Cart.checkout`, `checkout`) when exactly one symbol has it. A file path from another machine
 * (`/srv/app/src/cart.ts`) maps to the workspace file with the longest matching suffix.
 */
import { symbolIndex, type CodeGraphEngine, type GraphNode } from '../graph/api.ts';
import type { SpanFacts } from './otlp.ts';

export type Strategy = 'auto' | 'code_attributes' | 'label_match';
export type Via = 'code_lineno' | 'code_function_in_file' | 'code_function' | 'span_name';

const SLICE = 20_000;

export interface SpanMapper {
  map(span: SpanFacts): { node: GraphNode; via: Via } | { node: null; reason: string };
}

/** A mapper over the engine's current graph (indexes built in slices that yield). */
export async function spanMapper(engine: CodeGraphEngine, strategy: Strategy): Promise<SpanMapper> {
  const g = engine.graph;
  const symbols = await symbolIndex(g);
  const bySuffix = new Map<string, string[]>();
  for (let i = 0; i < g.nodeCapacity; i++) {
    if (i > 0 && i % SLICE === 0) await new Promise((r) => setImmediate(r));
    const n = g.node(i);
    if (n?.kind !== 'file') continue;
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
    const dotted = name.replace(/::|#/g, '.');
    const last = dotted.slice(dotted.lastIndexOf('.') + 1);
    let nodes: readonly GraphNode[] = symbols.labelled(last);
    if (file) nodes = nodes.filter((n) => n.path === file);
    const qualified = namespace ? `${namespace.replace(/::|#|\//g, '.')}.${dotted}` : dotted;
    if (qualified !== last) {
      // Either side may carry more of the path: a node `Cart.checkout` and a namespace `app.cart.Cart`
      // (Python and Java instrumentations name the module), or the reverse. The longest match wins.
      const within = (a: string, b: string) => a === b || a.endsWith(`.${b}`);
      const q = nodes.filter((n) => n.qualifiedName !== undefined && (within(n.qualifiedName, qualified) || within(qualified, n.qualifiedName) || (namespace !== undefined && n.qualifiedName === dotted)));
      const longest = Math.max(0, ...q.map((n) => n.qualifiedName!.length));
      const best = q.filter((n) => n.qualifiedName!.length === longest || within(n.qualifiedName!, qualified));
      if (best.length || !namespace) nodes = best;
    }
    return nodes;
  };
  return {
    map(span) {
      if (strategy !== 'label_match') {
        const file = span.filepath ? fileOf(span.filepath) : null;
        if (file && span.lineno) {
          const n = engine.symbolAt(file, span.lineno);
          if (n && n.kind !== 'file') return { node: n, via: 'code_lineno' };
        }
        if (file && span.function) {
          const nodes = byName(span.function, span.namespace, file);
          if (nodes.length === 1) return { node: nodes[0], via: 'code_function_in_file' };
          if (nodes.length > 1) return { node: null, reason: `code.function ${span.function} names ${nodes.length} symbols in ${file}; add code.namespace or code.lineno` };
        }
        if (span.function) {
          const nodes = byName(span.function, span.namespace);
          if (nodes.length === 1) return { node: nodes[0], via: 'code_function' };
          if (nodes.length > 1) return { node: null, reason: `code.function ${span.function} names ${nodes.length} symbols; add code.filepath or code.namespace` };
        }
        if (strategy === 'code_attributes') return { node: null, reason: span.filepath && !file ? `code.filepath ${span.filepath} matches no workspace file` : 'no code.* attributes' };
      }
      if (/^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*$/.test(span.name)) {
        const nodes = byName(span.name);
        if (nodes.length === 1) return { node: nodes[0], via: 'span_name' };
        if (nodes.length > 1) return { node: null, reason: `span name ${span.name} names ${nodes.length} symbols` };
      }
      return { node: null, reason: 'no code.* attributes and the span name is no symbol' };
    },
  };
}
