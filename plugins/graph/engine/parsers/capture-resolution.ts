/**
 * Resolving one file's collected captures into its FileExtraction: findings inside ERROR regions
 * are dropped first, declarations are nested and given visibility and docs, then calls,
 * references and parents are attributed to their enclosing declarations in source order.
 */
import type { ExtractedCall, ExtractedInherit, ExtractedReference, ExtractedSymbol, FileExtraction, SymbolKind } from '../extraction.ts';
import type { FileCaptures } from './capture-collector.ts';
import { docAbove } from './doc-text.ts';
import { enclosing, nestEntries, type Entry } from './nesting.ts';
import type { ErrorRegions } from './parse-errors.ts';
import { endLineAt } from './source-lines.ts';

/** Resolves a file's findings into its extraction: nesting, visibility, docs, then calls, parents and references by enclosing declaration. */
export function finishExtraction(f: FileCaptures, path: string): FileExtraction {
  if (f.regions !== null) dropUntrusted(f, f.regions);
  const symbols: ExtractedSymbol[] = [];
  f.comments.sort((a, b) => a.start - b.start);
  promoteConstructors(f.entries);
  // A method declared apart from its owner (`Ruler.prototype.push = …`, a Go receiver) is public as a member of it.
  const visited = new Map<string, Entry>();
  nestEntries(f.entries, (e, outer, parent) => {
    symbols.push(symbolOf(f, e, outer ?? (e.qualifier === undefined ? undefined : visited.get(e.qualifier)), parent));
    visited.set(e.qname, e);
  });
  const extraction: FileExtraction = {
    path,
    language: f.spec.language,
    loc: f.lines.loc,
    symbols,
    // Statements and require()/import() calls come from different patterns: report them in source order.
    imports: f.imports.sort((a, b) => a.line - b.line),
    calls: resolveCalls(f),
    inherits: resolveInherits(f),
    references: resolveRefs(f),
    docLinks: [],
    parseErrors: f.regions?.count ?? 0,
    ...(f.regions === null ? {} : { parseErrorLine: f.regions.firstLine }),
  };
  if (f.binds.size > 0) extraction.bindings = f.binds.finish(symbols, f.entries);
  f.spec.refine?.(extraction, f.source);
  return extraction;
}

/**
 * A function whose name qualifies methods declared apart from it (`Ruler.prototype.push = function`,
 * captured as `def.method` with `def.recv`) is a class: a JavaScript constructor function, its body
 * the constructor. (Go's receiver types never share a name with a function of their package.)
 */
function promoteConstructors(entries: Entry[]): void {
  let owners: Set<string> | undefined;
  for (const e of entries) if (e.kind === 'method' && e.qualifier !== undefined) (owners ??= new Set()).add(e.qualifier);
  if (owners === undefined) return;
  for (const e of entries) if (e.kind === 'function' && e.qualifier === undefined && owners.has(e.name)) e.kind = 'class';
}

/** Drops calls, references, imports and parents inside ERROR nodes, except within sound declarations. */
function dropUntrusted(f: FileCaptures, regions: ErrorRegions): void {
  const keep = <T extends { pos: number }>(items: T[]): T[] => items.filter((x) => regions.trusted(x.pos));
  f.calls = keep(f.calls);
  f.refs = keep(f.refs);
  f.inherits = keep(f.inherits);
  f.imports = f.imports.filter((_, i) => regions.trusted(f.importPos[i]));
}

/** Visibility and doc of a nested declaration; the outer one was decided first. */
function symbolOf(f: FileCaptures, e: Entry, outer: Entry | undefined, parent: string | undefined): ExtractedSymbol {
  const kind = e.kind as SymbolKind;
  let anchor = e.start;
  let marked = f.marks.has(anchor);
  for (let up = f.anchors.get(anchor); up !== undefined; up = f.anchors.get(anchor)) {
    anchor = up;
    marked ||= f.marks.has(anchor);
  }
  e.exported = f.spec.isExported({
    name: e.name,
    kind,
    marked,
    isPrivate: f.privates.has(e.start) || e.name.startsWith('#'),
    namedExport: outer === undefined && f.exportNames.has(e.name),
    parent: outer === undefined ? undefined : { kind: outer.kind, exported: outer.exported, trait: outer.trait },
    insideFunction: e.insideFunction,
  });
  const symbol: ExtractedSymbol = {
    kind,
    name: e.name,
    qualifiedName: e.qname,
    startLine: e.startRow + 1,
    endLine: endLineAt(f.lines, e.start, e.end),
  };
  if (parent !== undefined) symbol.parent = parent;
  if (e.bodiless) symbol.bodiless = true;
  const docs = f.spec.docs;
  const doc = docs === 'docstring' ? f.docstrings.get(e.start) : docAbove(f.source, f.lines, f.comments, anchor, docs);
  if (doc !== undefined) symbol.doc = doc;
  symbol.exported = e.exported;
  if (e.params !== undefined) {
    symbol.params = e.params;
    // Java: a private method is no overload a subclass's call can reach.
    if (f.privates.has(e.start)) symbol.private = true;
  }
  const returns = f.binds.returnTypes.get(e.start);
  if (returns !== undefined) symbol.returnType = returns;
  return symbol;
}

function resolveCalls(f: FileCaptures): ExtractedCall[] {
  const calls = f.calls;
  sortByPos(calls);
  const at = enclosing(f.entries);
  const out: ExtractedCall[] = [];
  // Attribute accesses: the first per caller, receiver and name (a caller is linked once anyway).
  const accessed = new Set<string>();
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i];
    if (c.access && f.calleeNames.has(c.pos)) continue; // a callee whose call matched after its attribute
    const call: ExtractedCall = { caller: at(c.pos), callee: c.callee, line: c.row + 1 };
    if (c.receiver !== undefined) call.receiver = c.receiver;
    if (c.args !== undefined) call.args = c.args;
    if (c.within !== undefined) call.within = c.within;
    if (c.access) {
      const key = `${call.caller}\0${c.receiver}\0${c.callee}`;
      if (accessed.has(key)) continue;
      accessed.add(key);
      call.access = true;
    }
    out.push(call);
  }
  return out;
}

function resolveRefs(f: FileCaptures): ExtractedReference[] {
  const refs = f.refs;
  sortByPos(refs);
  const declared = new Set<number>(f.notRefs);
  for (const e of f.entries) declared.add(e.nameStart);
  const builtins = f.spec.builtinTypes;
  const at = enclosing(f.entries);
  const seen = new Set<string>();
  const out: ExtractedReference[] = [];
  for (const r of refs) {
    if (r.name === '' || declared.has(r.pos) || builtins.has(r.name) || f.typeParams.has(r.name)) continue;
    const from = at(r.pos);
    const line = r.row + 1;
    const key = `${from}\0${r.name}\0${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from, name: r.name, line });
  }
  return out;
}

function resolveInherits(f: FileCaptures): ExtractedInherit[] {
  const byStart = new Map<number, Entry>();
  for (const e of f.entries) if (!byStart.has(e.start)) byStart.set(e.start, e);
  const seen = new Set<string>();
  const out: ExtractedInherit[] = [];
  const add = (child: string, parent: string, kind: 'extends' | 'implements', qualifier?: string): void => {
    const key = `${child}\0${parent}\0${kind}`;
    if (seen.has(key)) return;
    seen.add(key);
    const inherit: ExtractedInherit = { child, parent, kind };
    if (qualifier !== undefined) inherit.qualifier = qualifier;
    out.push(inherit);
  };
  for (const i of f.inherits) {
    const owner = byStart.get(i.owner);
    if (owner !== undefined) add(owner.qname, i.parent, i.kind, i.qualifier);
  }
  for (const e of f.entries) if (e.kind === 'impl' && e.trait !== undefined) add(e.qname, e.trait, 'implements');
  return out;
}

function sortByPos(items: { pos: number }[]): void {
  for (let i = 1; i < items.length; i++) {
    if (items[i - 1].pos > items[i].pos) {
      items.sort((a, b) => a.pos - b.pos);
      return;
    }
  }
}
