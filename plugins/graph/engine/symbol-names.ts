/**
 * The workspace-wide short-name table of code symbols: the global fallback of name resolution
 * reads it. Sections (document headings) are nodes but not code names, so they stay out.
 */
import type { GraphNode } from './graph.ts';

/** Code symbol node indices by short name, in insertion order. */
export class SymbolNames {
  private readonly byName = new Map<string, number[]>();

  /** Code symbols (not sections) with this short name. */
  named(name: string): readonly number[] {
    return this.byName.get(name) ?? [];
  }

  /** Adds a symbol node under its label (sections are skipped). */
  add(n: GraphNode, idx: number): void {
    if (n.kind === 'section') return;
    const list = this.byName.get(n.label);
    // A new name's list is made with its one entry: an empty array's first push reserves 17 slots,
    // and most names have one symbol (~100 bytes saved per name; ~150K names on the python3 prefix).
    if (!list) this.byName.set(n.label, [idx]);
    else list.push(idx);
  }

  /** Removes a symbol node; false when its name had no entry (a section, or never added). */
  remove(n: GraphNode, idx: number): boolean {
    if (n.kind === 'section') return false;
    const list = this.byName.get(n.label);
    if (!list) return false;
    const i = list.indexOf(idx);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byName.delete(n.label);
    return true;
  }
}
