/**
 * Symbol-level diff of one file between two texts: symbols added, removed, and changed — a symbol
 * counts as changed only when its own lines differ (nested symbols' lines are masked out), so a
 * class whose one method changed lists the method, not the class.
 */

/** A symbol as the parser previews it. */
export interface PreviewSymbol {
  id: string;
  kind: string;
  startLine: number;
  endLine: number;
}

/** The symbol changes of one file. */
export interface SymbolChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The part of a symbol id after the file path (`function:src/a.ts#f` → `function#f`), so renamed files compare. */
export function symbolKey(id: string): string {
  const colon = id.indexOf(':');
  const hash = id.indexOf('#');
  return hash < 0 ? id : `${id.slice(0, colon)}#${id.slice(hash + 1)}`;
}

/** The symbol's own lines, nested symbols' ranges replaced by one marker line each. */
function ownText(lines: string[], sym: PreviewSymbol, all: PreviewSymbol[]): string {
  const nested = all
    .filter((o) => o !== sym && o.startLine >= sym.startLine && o.endLine <= sym.endLine && (o.startLine > sym.startLine || o.endLine < sym.endLine))
    .sort((a, b) => a.startLine - b.startLine);
  const out: string[] = [];
  let line = sym.startLine;
  for (const n of nested) {
    if (n.startLine < line) continue; // inside an earlier nested symbol
    for (; line < n.startLine; line++) out.push((lines[line - 1] ?? '').trimEnd());
    out.push(`\u0000${symbolKey(n.id)}`);
    line = n.endLine + 1;
  }
  for (; line <= sym.endLine; line++) out.push((lines[line - 1] ?? '').trimEnd());
  return out.join('\n');
}

/** Compares the symbols of a file's old and new text (either may be absent: file added or removed). */
export function diffSymbols(oldText: string | null, oldSyms: PreviewSymbol[], newText: string | null, newSyms: PreviewSymbol[]): SymbolChanges {
  const oldLines = oldText?.split(/\r?\n/) ?? [];
  const newLines = newText?.split(/\r?\n/) ?? [];
  const before = new Map(oldSyms.map((s) => [symbolKey(s.id), s]));
  const after = new Map(newSyms.map((s) => [symbolKey(s.id), s]));
  const out: SymbolChanges = { added: [], removed: [], changed: [] };
  for (const [key, s] of after) {
    const o = before.get(key);
    if (!o) out.added.push(s.id);
    else if (ownText(oldLines, o, oldSyms) !== ownText(newLines, s, newSyms)) out.changed.push(s.id);
  }
  for (const [key, o] of before) {
    if (!after.has(key)) out.removed.push(o.id);
  }
  return out;
}
