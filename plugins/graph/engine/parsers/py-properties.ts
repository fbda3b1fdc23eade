/**
 * Python properties as one symbol: a `@property` getter and its `@name.setter` / `@name.deleter`
 * accessors share a name, so nesting numbers them `name`, `name#2`, …; they are one attribute, so
 * they become one symbol with the plain qualified name (the getter), marked `property`, the
 * accessors' start lines kept in `accessors` and its span stretched over them.
 */
import type { ExtractedSymbol, FileExtraction } from '../extraction.ts';

const PROPERTY = /^\s*@(?:builtins\.)?property\s*(?:#.*)?$/;
const ACCESSOR = /^\s*@([\p{ID_Start}_][\p{ID_Continue}]*)\.(?:setter|deleter)\b/u;

/** The decorator lines right above a `def` line (nearest first). */
export function decoratorsAbove(lines: readonly string[], defLine: number): string[] {
  const out: string[] = [];
  for (let i = defLine - 2; i >= 0; i--) {
    const text = lines[i];
    if (/^\s*@/.test(text)) out.push(text);
    else if (!/^\s*[)\]},]/.test(text) && text.trim() !== '' && !/^\s*#/.test(text)) break;
  }
  return out;
}

type Role = 'getter' | 'accessor' | null;

function roleOf(lines: readonly string[], s: ExtractedSymbol): Role {
  for (const d of decoratorsAbove(lines, s.startLine)) {
    if (PROPERTY.test(d)) return 'getter';
    const m = ACCESSOR.exec(d);
    if (m !== null && m[1] === s.name) return 'accessor';
  }
  return null;
}

/** Symbols grouped by their qualified name without the `#n` of a repeated definition, in source order. */
export function groupByPlainName(symbols: readonly ExtractedSymbol[], keep: (s: ExtractedSymbol) => boolean): Map<string, ExtractedSymbol[]> {
  const groups = new Map<string, ExtractedSymbol[]>();
  for (const s of symbols) {
    if (!keep(s)) continue;
    const plain = s.qualifiedName.replace(/#\d+$/, '');
    const list = groups.get(plain);
    if (list) list.push(s);
    else groups.set(plain, [s]);
  }
  return groups;
}

/**
 * Renames symbols after a merge (`rename`: old qualified name → new one, applied to nested names
 * too), drops `dropped` and, when `dropNested`, whatever they contain; then re-points calls,
 * references, parents and bindings.
 */
export function applyRenames(ex: FileExtraction, rename: ReadonlyMap<string, string>, dropped: ReadonlySet<ExtractedSymbol>, dropNested: boolean): void {
  const map = (q: string): string => {
    const hit = rename.get(q);
    if (hit !== undefined) return hit;
    for (const [from, to] of rename) if (q.startsWith(`${from}.`)) return to + q.slice(from.length);
    return q;
  };
  const droppedNames = [...dropped].map((s) => s.qualifiedName);
  const inDropped = (q: string): boolean => droppedNames.some((n) => q === n || q.startsWith(`${n}.`));
  ex.symbols = ex.symbols.filter((s) => !dropped.has(s) && !(dropNested && inDropped(s.qualifiedName)));
  for (const s of ex.symbols) {
    s.qualifiedName = map(s.qualifiedName);
    if (s.parent !== undefined) s.parent = map(s.parent);
  }
  for (const c of ex.calls) if (c.caller !== null) c.caller = map(c.caller);
  for (const r of ex.references) if (r.from !== null) r.from = map(r.from);
  for (const i of ex.inherits) i.child = map(i.child);
  for (const b of ex.bindings ?? []) if (b.scope !== null) b.scope = map(b.scope);
}

/** Merges each `@property` getter with its setter and deleter (see the module comment). */
export function mergePythonProperties(ex: FileExtraction, source: string): void {
  if (!source.includes('@')) return;
  const groups = groupByPlainName(ex.symbols, (s) => s.kind === 'method');
  const lines = source.split('\n');
  const rename = new Map<string, string>();
  const dropped = new Set<ExtractedSymbol>();
  for (const [plain, group] of groups) {
    const roles = group.map((s) => roleOf(lines, s));
    const g = roles.indexOf('getter');
    if (g < 0) continue;
    const getter = group[g];
    getter.property = true;
    const accessors = group.filter((s, i) => i > g && roles[i] === 'accessor');
    if (accessors.length === 0) continue;
    getter.accessors = accessors.map((s) => s.startLine);
    getter.endLine = Math.max(getter.endLine, ...accessors.map((s) => s.endLine));
    for (const s of accessors) dropped.add(s);
    // The survivors take `name`, `name#2`, … again, the getter first.
    const survivors = [getter, ...group.filter((s) => s !== getter && !dropped.has(s))];
    survivors.forEach((s, i) => rename.set(s.qualifiedName, i === 0 ? plain : `${plain}#${i + 1}`));
    for (const s of accessors) rename.set(s.qualifiedName, rename.get(getter.qualifiedName)!);
  }
  if (rename.size > 0) applyRenames(ex, rename, dropped, false);
}
