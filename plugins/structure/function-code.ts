/**
 * Facts read from each function's own code (comments removed), computed once per graph version and
 * classifier key: taint's sources/sinks/boundaries, flow's state writes and locks.
 */
import { RELATION_CODE, type CodeGraph, type CodeGraphEngine } from '../graph/api.ts';
import { CODE_LANGUAGES } from './code-trees.ts';
import { codeOnly } from './taint-kinds.ts';

/** One top-level statement of a file (outside its functions and classes), with the classifier's facts on its code. */
export interface Segment<T> {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Its code, comments removed: what the facts were read from. */
  code: string;
  facts: T;
}

/** A line that continues the statement above it: indented, blank, or starting with a closing bracket or a chained call. */
const CONTINUES = /^(?:\s|$|[)\]}.,?:]|&&|\|\|)/;

const CODE_KINDS = new Set(['function', 'method']);
const caches = new WeakMap<CodeGraph, Map<string, { version: number; facts: Map<number, unknown>; segments: Map<number, unknown> }>>();

/** Reads functions' code lazily (each file once per instance) and keeps the classifier's facts per graph version. */
export class FunctionCode<T> {
  private readonly files = new Map<string, string[]>();
  private readonly facts: Map<number, T>;
  private readonly segmentsByFile: Map<number, Segment<T>[]>;

  constructor(
    private readonly engine: CodeGraphEngine,
    key: string,
    private readonly classify: (code: string, fileLines: readonly string[], path: string) => T,
  ) {
    const g = engine.graph;
    let perGraph = caches.get(g);
    if (!perGraph) caches.set(g, (perGraph = new Map()));
    let c = perGraph.get(key);
    if (!c || c.version !== g.version) {
      if (perGraph.size > 16) perGraph.clear();
      perGraph.set(key, (c = { version: g.version, facts: new Map(), segments: new Map() }));
    }
    this.facts = c.facts as Map<number, T>;
    this.segmentsByFile = c.segments as Map<number, Segment<T>[]>;
  }

  private lines(path: string): string[] {
    let lines = this.files.get(path);
    if (!lines) {
      try {
        lines = this.engine.readFile(path).content.split('\n');
      } catch {
        lines = [];
      }
      this.files.set(path, lines);
    }
    return lines;
  }

  /**
   * The top-level statements of file node `i` (the code outside its functions and classes: inline
   * handlers such as `app.get('/x', (req, res) => …)`, a script's `if __name__ == "__main__":`),
   * each with its facts; a statement starts at a line beginning in column 0 and runs until the next.
   * Empty for other nodes, and for files of no code language (a Markdown page's examples run nowhere).
   */
  segments(i: number): Segment<T>[] {
    const hit = this.segmentsByFile.get(i);
    if (hit) return hit;
    const g = this.engine.graph;
    const n = g.node(i);
    const out: Segment<T>[] = [];
    if (n?.kind === 'file' && n.language !== null && CODE_LANGUAGES.includes(n.language)) {
      const lines = this.lines(n.path);
      const inside = new Uint8Array(lines.length + 2);
      g.forEachOut(i, (target, _w, relation, edge) => {
        const t = g.node(target);
        if (relation !== RELATION_CODE.contains || !g.isEdgeAlive(edge) || !t || t.kind === 'module' || t.kind === 'file') return;
        for (let l = Math.max(1, t.startLine); l <= Math.min(lines.length, t.endLine); l++) inside[l] = 1;
      });
      const code = codeOnly(lines.map((line, k) => (inside[k + 1] ? '' : line)).join('\n')).split('\n');
      let start = -1;
      const close = (end: number) => {
        if (start < 0) return;
        while (end > start && code[end - 1].trim() === '') end--;
        if (end <= start) return;
        const text = code.slice(start, end).join('\n');
        out.push({ startLine: start + 1, endLine: end, code: text, facts: this.classify(text, lines, n.path) });
      };
      for (let k = 0; k < code.length; k++) {
        if (inside[k + 1]) {
          close(k);
          start = -1;
        } else if (!CONTINUES.test(code[k])) {
          close(k);
          start = k;
        }
      }
      close(code.length);
    }
    this.segmentsByFile.set(i, out);
    return out;
  }

  /** The facts of node `i`; null for nodes that are not functions or methods. */
  of(i: number): T | null {
    const hit = this.facts.get(i);
    if (hit !== undefined) return hit;
    const n = this.engine.graph.node(i);
    if (!n || !CODE_KINDS.has(n.kind)) return null;
    const lines = this.lines(n.path);
    const facts = this.classify(codeOnly(lines.slice(n.startLine - 1, n.endLine).join('\n')), lines, n.path);
    this.facts.set(i, facts);
    return facts;
  }
}
