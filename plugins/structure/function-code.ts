/**
 * Facts read from each function's own code (comments removed), computed once per graph version and
 * classifier key: taint's sources/sinks/boundaries, flow's state writes and locks.
 */
import type { CodeGraph, CodeGraphEngine } from '../graph/api.ts';
import { codeOnly } from './taint-kinds.ts';

const CODE_KINDS = new Set(['function', 'method']);
const caches = new WeakMap<CodeGraph, Map<string, { version: number; facts: Map<number, unknown> }>>();

/** Reads functions' code lazily (each file once per instance) and keeps the classifier's facts per graph version. */
export class FunctionCode<T> {
  private readonly files = new Map<string, string[]>();
  private readonly facts: Map<number, T>;

  constructor(
    private readonly engine: CodeGraphEngine,
    key: string,
    private readonly classify: (code: string, fileLines: readonly string[]) => T,
  ) {
    const g = engine.graph;
    let perGraph = caches.get(g);
    if (!perGraph) caches.set(g, (perGraph = new Map()));
    let c = perGraph.get(key);
    if (!c || c.version !== g.version) {
      if (perGraph.size > 16) perGraph.clear();
      perGraph.set(key, (c = { version: g.version, facts: new Map() }));
    }
    this.facts = c.facts as Map<number, T>;
  }

  /** The facts of node `i`; null for nodes that are not functions or methods. */
  of(i: number): T | null {
    const hit = this.facts.get(i);
    if (hit !== undefined) return hit;
    const n = this.engine.graph.node(i);
    if (!n || !CODE_KINDS.has(n.kind)) return null;
    let lines = this.files.get(n.path);
    if (!lines) {
      try {
        lines = this.engine.readFile(n.path).content.split('\n');
      } catch {
        lines = [];
      }
      this.files.set(n.path, lines);
    }
    const facts = this.classify(codeOnly(lines.slice(n.startLine - 1, n.endLine).join('\n')), lines);
    this.facts.set(i, facts);
    return facts;
  }
}
