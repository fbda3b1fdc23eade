/**
 * Where in the source an edge comes from: the lines of the calls, type references, imports or doc
 * links that produced it, read from the stored extraction of the source's file. Edges keep no line
 * (one per file pair or symbol pair), so this is looked up only for the few edges a verb lists.
 */
import type { CodeGraphEngine } from '../../graph/api.ts';
import type { FileExtraction } from '../../graph/api.ts';
import type { GraphNode, Relation } from '../../graph/api.ts';

/** Relations whose source line is not a call; any other (calls, tests, call-like relations added later) is looked up among calls. */
const NOT_CALL_SITES: ReadonlySet<string> = new Set(['contains', 'inherits', 'implements', 'references', 'imports', 'documents', 'co_changes']);

/** Relations made from no line of source. */
const NO_SITE: ReadonlySet<string> = new Set(['co_changes']);

/** Reads extractions once per file for one verb call. */
export class EdgeSites {
  private readonly extractions = new Map<string, FileExtraction | null>();

  constructor(private readonly engine: CodeGraphEngine) {}

  /**
   * First source line of the edge `from -relation-> to`, or the line where `from` starts when unknown;
   * null for a relation no line of source makes (co-change: the files' git history).
   */
  line(from: GraphNode, to: GraphNode, relation: Relation | string): number | null {
    if (NO_SITE.has(relation)) return null;
    const ex = this.extraction(from.path);
    const caller = from.kind === 'file' ? null : (from.qualifiedName ?? null);
    const inside = (owner: string | null): boolean => owner === caller || (caller === null ? false : owner?.startsWith(`${caller}.`) === true);
    let lines: number[] = [];
    if (ex && (relation === 'calls' || relation === 'tests' || !NOT_CALL_SITES.has(relation))) {
      // A test file's `tests` edge comes from any of its calls; a symbol's edges from its own body.
      lines = ex.calls.filter((c) => c.callee === to.label && (relation === 'tests' || inside(c.caller))).map((c) => c.line);
    } else if (ex && relation === 'references') {
      lines = ex.references.filter((r) => r.name === to.label && inside(r.from)).map((r) => r.line);
    } else if (ex && relation === 'imports') {
      const stem = to.label.replace(/\.[^.]+$/, '');
      // The module in the specifier's path, or among the imported names (`use a::{m}`, `from pkg import m`).
      lines = ex.imports.filter((i) => i.specifier.split(/[/.:]+/).filter(Boolean).includes(stem) || i.names.includes(stem)).map((i) => i.line);
    } else if (ex && relation === 'documents') {
      // A section's edge comes from the links in that section itself (a subsection links on its own).
      lines = ex.docLinks.filter((d) => d.target.includes(to.label) && (caller === null || d.section === caller)).map((d) => d.line);
    }
    return lines.length ? Math.min(...lines) : from.startLine;
  }

  private extraction(path: string): FileExtraction | null {
    if (this.extractions.has(path)) return this.extractions.get(path)!;
    let ex: FileExtraction | null = null;
    try {
      ex = this.engine.fileExtraction(path);
    } catch {
      ex = null; // unreadable store: lines fall back to where the symbol starts
    }
    this.extractions.set(path, ex);
    return ex;
  }
}
