/**
 * TypeScript overloads as one symbol. Nesting gives a repeated qualified name `name#2`, `name#3`, …;
 * in TS a run of same-named functions or methods in one scope is an overload set (signatures, then
 * the implementation) or a declare-only set (`.d.ts`, interfaces). JavaScript has no overloads: its
 * repeats (and a TS run whose earlier members have bodies) stay apart as `name#2`. The set becomes the one symbol
 * with the plain qualified name, spanning every declaration, with the signatures' text kept in
 * `signatures`; callers, references and nested symbols of the implementation move onto it.
 */
import type { ExtractedSymbol, FileExtraction } from '../extraction.ts';

const REPEAT = /#\d+$/;
const MAX_SIGNATURE_CHARS = 300;

/** Merges overload sets of a TS/JS extraction in place; returns it. */
export function mergeTsOverloads(ex: FileExtraction, source: string): FileExtraction {
  const hasRepeats = ex.language !== 'javascript' && ex.symbols.some((s) => REPEAT.test(s.qualifiedName));
  if (hasRepeats) mergeRepeats(ex, source);
  for (const s of ex.symbols) delete s.bodiless;
  return ex;
}

function mergeRepeats(ex: FileExtraction, source: string): void {
  const lines = source.split('\n');
  const groups = new Map<string, ExtractedSymbol[]>();
  for (const s of ex.symbols) {
    if (s.kind !== 'function' && s.kind !== 'method') continue;
    const base = s.qualifiedName.replace(REPEAT, '');
    let g = groups.get(base);
    if (!g) groups.set(base, (g = []));
    g.push(s);
  }
  const rename = new Map<string, string>();
  const drop = new Set<ExtractedSymbol>();
  const isDts = /\.d\.[cm]?ts$/.test(ex.path);
  const parentKind = new Map(ex.symbols.map((s) => [s.qualifiedName, s.kind]));
  const text = (s: ExtractedSymbol): string => lines.slice(s.startLine - 1, s.endLine).join('\n');
  // A member with a body before the last is no overload signature but a same-named function of
  // another object literal (`{ validate() {…} }` twice) or a redefinition: never merged.
  const isSignature = (s: ExtractedSymbol): boolean => s.bodiless === true;
  for (const [base, group] of groups) {
    if (group.length < 2 || group.some((s) => s.parent !== group[0].parent)) continue;
    const last = group[group.length - 1];
    const declareOnly = isDts || (last.parent !== undefined && parentKind.get(last.parent) === 'interface') || isSignature(last);
    if (!declareOnly && !group.slice(0, -1).every(isSignature)) continue;
    const signatures = (declareOnly ? group : group.slice(0, -1)).map((s) => text(s).replace(/\s+/g, ' ').trim().slice(0, MAX_SIGNATURE_CHARS));
    const merged: ExtractedSymbol = { ...last, qualifiedName: base, startLine: group[0].startLine, endLine: Math.max(...group.map((s) => s.endLine)), signatures };
    const doc = group.find((s) => s.doc)?.doc;
    if (doc) merged.doc = doc;
    if (group.some((s) => s.exported)) merged.exported = true;
    for (const s of group) {
      if (s.qualifiedName !== base) rename.set(s.qualifiedName, base);
      if (s !== last) drop.add(s);
    }
    ex.symbols[ex.symbols.indexOf(last)] = merged;
  }
  if (rename.size === 0) return;
  const fix = (q: string | null | undefined): string | null | undefined => {
    if (!q) return q;
    const head = q.split('.');
    for (let i = head.length; i > 0; i--) {
      const prefix = head.slice(0, i).join('.');
      const to = rename.get(prefix);
      if (to !== undefined) return [to, ...head.slice(i)].join('.');
    }
    return q;
  };
  ex.symbols = ex.symbols.filter((s) => !drop.has(s));
  for (const s of ex.symbols) {
    s.qualifiedName = fix(s.qualifiedName)!;
    if (s.parent !== undefined) s.parent = fix(s.parent) ?? undefined;
  }
  for (const c of ex.calls) c.caller = fix(c.caller) ?? null;
  for (const r of ex.references) r.from = fix(r.from) ?? null;
  for (const i of ex.inherits) i.child = fix(i.child)!;
}
