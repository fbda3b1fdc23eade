/**
 * The tree-sitter half of extraction shared by every code language: run one Query per file, sort its
 * matches into declarations, imports, calls, inheritance, type references and docs, then resolve
 * nesting (nesting.ts) in one sweep over positions. Per file it stays synchronous and touches the tree
 * only through the query results.
 *
 * Query capture names follow one convention; the part before the first dot routes a match:
 * - `@def.<class|interface|type|function|method|impl|scope>` the declaration node, with `@def.name`;
 *   Go methods add `@def.recv` (receiver type name), Rust impls give `@def.impltype` and `@def.trait`.
 * - `@doc.owner` + `@doc.string`: a Python docstring of the owner declaration.
 * - `@import.stmt`: an import statement parsed by the language; `@import.spec`: a bare module string.
 * - `@call.name` (+ `@call.recv`): a call's callee name node and receiver expression; `@call.access`
 *   (+ `@call.recv`) instead: an attribute read or written without a call (ExtractedCall.access).
 * - `@inherit.owner` + `@inherit.extends|implements`: a declaration and one parent type expression.
 * - `@ref.name`: a type name used; `@ref.tparam`: a type parameter name; `@ref.skip`: a name that is
 *   not a reference; `@ref.string`: a Python string annotation; `@ref.union`: a Python `A | B` annotation.
 * - `@export.decl` (+ `@export.stmt`), `@export.inner` + `@export.outer`, `@export.public`,
 *   `@export.private`, `@export.name`: visibility marks and doc anchors.
 * - `@comment`: comment nodes, for doc comments.
 * - `@bind.<local|param|field|selffield|with|range>`: a bound name, with `@bind.type` (declared type) and/or
 *   `@bind.value` (value, or the collection a `range` name iterates); `selffield` is `self.x`/`this.x`,
 *   a field of the enclosing method's class. `@bind.owner` + `@bind.returns`: a declaration's result type.
 * Captures whose names start with `_` only serve predicates (`#eq?`) and are ignored.
 *
 * A tree with parse errors yields no fact taken from its broken parts (parse-errors.ts): a declaration
 * with a MISSING name, an error in its header, or a reserved-word name (spec.reservedWords); one inside
 * an ERROR node unless it is whole and error-free (recovery often wraps a whole file in one ERROR);
 * calls, imports, parents and references inside ERROR nodes but outside such sound declarations; and
 * calls whose own argument list or statement is broken are dropped. The rest stays.
 * A language may offer `repair`, an offset-preserving rewrite of syntax its grammar lacks, tried once on
 * files that do not parse cleanly.
 */
import { Query, type Language as Grammar, type Node, type QueryCapture } from 'web-tree-sitter';
import type {
  ExtractedCall,
  ExtractedImport,
  ExtractedInherit,
  ExtractedReference,
  ExtractedSymbol,
  FileExtraction,
  SymbolKind,
} from '../extraction.ts';
import { BindingCollector } from './binding-collector.ts';
import { valueText } from './binding-text.ts';
import { docAbove, docstringDoc, type CommentSpan } from './doc-text.ts';
import { lastSegment, receiverText } from './name-text.ts';
import { enclosing, nestEntries, type Entry } from './nesting.ts';
import { errorQuery, isBrokenCall, isMisparsedDef, parseWithRepair, type ErrorRegions } from './parse-errors.ts';
import type { EntryKind, Extractor, QueryLanguageSpec } from './query-spec.ts';
import { endLineAt, indexLines, lineAt, type LineIndex } from './source-lines.ts';
import { createParser } from './tree-sitter.ts';

interface PendingCall {
  pos: number;
  row: number;
  callee: string;
  receiver?: string;
  args?: string[];
  access?: boolean;
}

interface PendingRef {
  pos: number;
  row: number;
  name: string;
}

interface PendingInherit {
  owner: number;
  parent: string;
  qualifier?: string;
  kind: 'extends' | 'implements';
  pos: number;
}

const ROLES = ['def', 'doc', 'import', 'call', 'inherit', 'ref', 'export', 'comment', 'bind'] as const;
type Role = (typeof ROLES)[number];

const IDENT = /[#$\p{ID_Continue}]+/uy;
const DOTTED = /^[\p{ID_Start}_][\p{ID_Continue}.]*$/u;

/**
 * An `@call.access` name that is an attribute read or write, not the callee of a call (those come
 * from the call patterns) nor a dunder (protocol machinery, not a property).
 */
function isPlainAccess(name: Node): boolean {
  const attr = name.parent;
  const up = attr?.parent;
  if (!attr || !up) return false;
  if (up.type === 'call' && up.childForFieldName('function')?.startIndex === attr.startIndex) return false;
  const text = name.text;
  return !(text.startsWith('__') && text.endsWith('__'));
}

/** Builds the extractor of a language from its loaded grammar; compiles its query and keeps one parser. */
export function createQueryExtractor(spec: QueryLanguageSpec, grammar: Grammar): Extractor {
  const parser = createParser(grammar);
  const query = new Query(grammar, spec.query);
  // Run only on trees that report errors, so clean files pay nothing for the count.
  const errors = errorQuery(grammar);
  // A pattern's role is fixed, so it is read from its capture names once.
  const roles: (Role | null)[] = [];
  const roleOf = (patternIndex: number, captures: readonly QueryCapture[]): Role | null => {
    let role = roles[patternIndex];
    if (role === undefined) {
      role = null;
      for (const c of captures) {
        const prefix = c.name.split('.')[0];
        if ((ROLES as readonly string[]).includes(prefix)) role = prefix as Role;
      }
      roles[patternIndex] = role;
    }
    return role;
  };

  return (path: string, rawSource: string): FileExtraction => {
    // A byte-order mark would shift every offset by one; tree-sitter does not skip it.
    const original = rawSource.charCodeAt(0) === 0xfeff ? rawSource.slice(1) : rawSource;
    const { tree, source, regions } = parseWithRepair(parser, errors, original, spec.repair, path);
    try {
      const root = tree.rootNode;
      const file = new FileState(spec, source, regions);
      for (const match of query.matches(root)) {
        const captures = match.captures;
        if (captures.length === 0) continue;
        const role = roleOf(match.patternIndex, captures);
        if (role !== null) file.take(role, captures);
      }
      const extraction = file.finish(path);
      // The language's last word reads the file as written, not as repaired for the grammar.
      return spec.finish ? spec.finish(extraction, original) : extraction;
    } finally {
      tree.delete();
    }
  };
}

/** The raw findings of one file, then their resolution into a FileExtraction. */
class FileState {
  private readonly lines: LineIndex;
  private readonly entries: Entry[] = [];
  private calls: PendingCall[] = [];
  private refs: PendingRef[] = [];
  private inherits: PendingInherit[] = [];
  private imports: ExtractedImport[] = [];
  /** Source offset of the node each import came from (same index as `imports`). */
  private readonly importPos: number[] = [];
  private readonly comments: CommentSpan[] = [];
  private readonly docstrings = new Map<number, string>();
  private readonly marks = new Set<number>();
  private readonly privates = new Set<number>();
  private readonly anchors = new Map<number, number>();
  private readonly exportNames = new Set<string>();
  private readonly typeParams = new Set<string>();
  private readonly notRefs = new Set<number>();
  private readonly binds: BindingCollector;

  constructor(
    private readonly spec: QueryLanguageSpec,
    private readonly source: string,
    /** Null for a clean parse. */
    private readonly regions: ErrorRegions | null,
  ) {
    this.lines = indexLines(source);
    this.binds = new BindingCollector(spec.closureTypes, (n) => this.text(n), (n) => this.ident(n));
  }

  take(role: Role, captures: QueryCapture[]): void {
    switch (role) {
      case 'def':
        return this.takeDef(captures);
      case 'call':
        return this.takeCall(captures);
      case 'ref':
        return this.takeRef(captures);
      case 'comment':
        for (const c of captures) if (c.name === 'comment') this.comments.push({ start: c.node.startIndex, end: c.node.endIndex });
        return;
      case 'import':
        return this.takeImport(captures);
      case 'inherit':
        return this.takeInherit(captures);
      case 'doc':
        return this.takeDoc(captures);
      case 'export':
        return this.takeExport(captures);
      case 'bind':
        return this.binds.take(captures);
    }
  }

  private takeDef(captures: QueryCapture[]): void {
    let node: Node | undefined;
    let kind: EntryKind | undefined;
    let nameNode: Node | undefined;
    let qualifier: string | undefined;
    let trait: string | undefined;
    for (const c of captures) {
      switch (c.name) {
        case 'def.name':
        case 'def.impltype':
          nameNode = c.node;
          break;
        case 'def.recv':
          qualifier = this.ident(c.node);
          break;
        case 'def.trait':
          trait = lastSegment(this.text(c.node));
          break;
        default:
          if (c.name.startsWith('def.')) {
            node = c.node;
            kind = c.name.slice(4) as EntryKind;
          }
      }
    }
    if (node === undefined || kind === undefined || nameNode === undefined) return;
    // A MISSING name has no text of its own: reading from its offset would take the next word.
    if (this.regions !== null && nameNode.isMissing) return;
    const name = this.ident(nameNode);
    if (name === '') return;
    if (this.regions !== null && isMisparsedDef(node, nameNode, name, this.regions, this.spec.reservedWords)) return;
    const params = this.spec.params?.(node, (n) => this.text(n));
    this.entries.push({
      ...(params === undefined ? {} : { params }),
      kind,
      start: node.startIndex,
      end: node.endIndex,
      nameStart: nameNode.startIndex,
      name,
      startRow: node.startPosition.row,
      qualifier,
      trait,
      qname: '',
      caller: null,
      exported: false,
      insideFunction: false,
    });
  }

  private takeCall(captures: QueryCapture[]): void {
    let nameNode: Node | undefined;
    let recvStart = -1;
    let access = false;
    for (const c of captures) {
      if (c.name === 'call.name') nameNode = c.node;
      else if (c.name === 'call.recv') recvStart = c.node.startIndex;
      else if (c.name === 'call.access') {
        nameNode = c.node;
        access = true;
      }
    }
    if (nameNode === undefined) return;
    if (access && !isPlainAccess(nameNode)) return;
    if (this.regions !== null && isBrokenCall(nameNode, this.regions)) return;
    const pos = nameNode.startIndex;
    const callee = this.ident(nameNode);
    if (callee === '') return;
    const call: PendingCall = { pos, row: nameNode.startPosition.row, callee };
    const args = this.spec.args?.(nameNode, (n) => this.text(n));
    if (args !== undefined) call.args = args;
    if (recvStart >= 0) {
      let receiver = receiverText(this.source, recvStart, pos);
      if (receiver.endsWith('…')) {
        // A long chain (`Foo.builder("x", y)\n  .add(z)`): keep its shape with arguments elided, so receiver types can follow it.
        const compact = valueText(this.source.slice(recvStart, pos).replace(/\s*(?:\?\.|\.|::)\s*$/, ''));
        if (compact !== '' && compact.length <= 160) receiver = compact;
      }
      if (receiver !== '') call.receiver = receiver;
    }
    if (access) {
      if (call.receiver === undefined) return;
      call.access = true;
    }
    this.calls.push(call);
  }

  private takeRef(captures: QueryCapture[]): void {
    for (const c of captures) {
      const node = c.node;
      switch (c.name) {
        case 'ref.name':
          this.refs.push({ pos: node.startIndex, row: node.startPosition.row, name: this.ident(node) });
          break;
        case 'ref.tparam':
          this.typeParams.add(this.ident(node));
          break;
        case 'ref.skip':
          this.notRefs.add(node.startIndex);
          break;
        case 'ref.union': {
          // `A | b.B | None` parses as nested binary operators; its plain names are the references.
          const text = this.text(node);
          let offset = 0;
          for (const part of text.split('|')) {
            const name = part.trim();
            const pos = node.startIndex + offset + part.indexOf(name);
            if (DOTTED.test(name)) this.refs.push({ pos, row: lineAt(this.lines, pos) - 1, name: lastSegment(name) });
            offset += part.length + 1;
          }
          break;
        }
        case 'ref.string': {
          // A string annotation counts only when it is a plain (dotted) name: `"Foo"`, `"mod.Foo"`.
          const text = this.text(node).trim();
          if (DOTTED.test(text)) this.refs.push({ pos: node.startIndex, row: node.startPosition.row, name: lastSegment(text) });
          break;
        }
      }
    }
  }

  private takeImport(captures: QueryCapture[]): void {
    for (const c of captures) {
      const node = c.node;
      // An import statement with any error in it may name the wrong module or names; a whole one is sound.
      if (this.regions !== null && (c.name === 'import.stmt' || c.name === 'import.spec')) {
        if (node.hasError) continue;
        if (c.name === 'import.stmt') this.regions.markSound(node.startIndex, node.endIndex);
      }
      const line = node.startPosition.row + 1;
      const before = this.imports.length;
      if (c.name === 'import.stmt') this.spec.parseImport(this.text(node), line, this.imports);
      else if (c.name === 'import.spec') this.imports.push({ specifier: this.text(node), line, names: [] });
      for (let i = before; i < this.imports.length; i++) this.importPos[i] = node.startIndex;
    }
  }

  private takeInherit(captures: QueryCapture[]): void {
    let owner = -1;
    const parents: PendingInherit[] = [];
    for (const c of captures) {
      if (c.name === 'inherit.owner') owner = c.node.startIndex;
      else if (c.name.startsWith('inherit.')) {
        if (this.regions !== null && c.node.hasError) continue;
        const text = this.text(c.node);
        const parent = lastSegment(text);
        if (parent === '') continue;
        const p: PendingInherit = { owner: -1, parent, kind: c.name === 'inherit.implements' ? 'implements' : 'extends', pos: c.node.startIndex };
        // `mod.Base`: the qualifier may be a module alias, whose exports name the base.
        if (DOTTED.test(text) && text.endsWith(`.${parent}`)) p.qualifier = text.slice(0, -parent.length - 1);
        parents.push(p);
      }
    }
    for (const p of parents) this.inherits.push({ ...p, owner });
  }

  private takeDoc(captures: QueryCapture[]): void {
    let owner = -1;
    let doc: string | undefined;
    for (const c of captures) {
      if (c.name === 'doc.owner') owner = c.node.startIndex;
      else if (c.name === 'doc.string') doc = docstringDoc(this.text(c.node));
    }
    if (owner >= 0 && doc !== undefined) this.docstrings.set(owner, doc);
  }

  private takeExport(captures: QueryCapture[]): void {
    let inner = -1;
    let outer = -1;
    for (const c of captures) {
      const start = c.node.startIndex;
      switch (c.name) {
        case 'export.decl':
          this.marks.add(start);
          inner = start;
          break;
        case 'export.inner':
          inner = start;
          break;
        case 'export.stmt':
        case 'export.outer':
          outer = start;
          break;
        case 'export.public':
          this.marks.add(start);
          break;
        case 'export.private':
          this.privates.add(start);
          break;
        case 'export.name':
          this.exportNames.add(this.ident(c.node));
          break;
      }
    }
    if (inner >= 0 && outer >= 0 && inner !== outer) this.anchors.set(inner, outer);
  }

  finish(path: string): FileExtraction {
    if (this.regions !== null) this.dropUntrusted(this.regions);
    const symbols: ExtractedSymbol[] = [];
    this.comments.sort((a, b) => a.start - b.start);
    nestEntries(this.entries, (e, outer, parent) => symbols.push(this.symbolOf(e, outer, parent)));
    const extraction: FileExtraction = {
      path,
      language: this.spec.language,
      loc: this.lines.loc,
      symbols,
      // Statements and require()/import() calls come from different patterns: report them in source order.
      imports: this.imports.sort((a, b) => a.line - b.line),
      calls: this.resolveCalls(),
      inherits: this.resolveInherits(),
      references: this.resolveRefs(),
      docLinks: [],
      parseErrors: this.regions?.count ?? 0,
      ...(this.regions === null ? {} : { parseErrorLine: this.regions.firstLine }),
    };
    if (this.binds.size > 0) extraction.bindings = this.binds.finish(symbols, this.entries);
    this.spec.refine?.(extraction, this.source);
    return extraction;
  }

  /** Drops calls, references, imports and parents inside ERROR nodes, except within sound declarations. */
  private dropUntrusted(regions: ErrorRegions): void {
    const keep = <T extends { pos: number }>(items: T[]): T[] => items.filter((x) => regions.trusted(x.pos));
    this.calls = keep(this.calls);
    this.refs = keep(this.refs);
    this.inherits = keep(this.inherits);
    this.imports = this.imports.filter((_, i) => regions.trusted(this.importPos[i]));
  }

  /** Visibility and doc of a nested declaration; the outer one was decided first. */
  private symbolOf(e: Entry, outer: Entry | undefined, parent: string | undefined): ExtractedSymbol {
    const kind = e.kind as SymbolKind;
    let anchor = e.start;
    let marked = this.marks.has(anchor);
    for (let up = this.anchors.get(anchor); up !== undefined; up = this.anchors.get(anchor)) {
      anchor = up;
      marked ||= this.marks.has(anchor);
    }
    e.exported = this.spec.isExported({
      name: e.name,
      kind,
      marked,
      isPrivate: this.privates.has(e.start) || e.name.startsWith('#'),
      namedExport: outer === undefined && this.exportNames.has(e.name),
      parent: outer === undefined ? undefined : { kind: outer.kind, exported: outer.exported, trait: outer.trait },
      insideFunction: e.insideFunction,
    });
    const symbol: ExtractedSymbol = {
      kind,
      name: e.name,
      qualifiedName: e.qname,
      startLine: e.startRow + 1,
      endLine: endLineAt(this.lines, e.start, e.end),
    };
    if (parent !== undefined) symbol.parent = parent;
    const docs = this.spec.docs;
    const doc = docs === 'docstring' ? this.docstrings.get(e.start) : docAbove(this.source, this.lines, this.comments, anchor, docs);
    if (doc !== undefined) symbol.doc = doc;
    symbol.exported = e.exported;
    if (e.params !== undefined) symbol.params = e.params;
    const returns = this.binds.returnTypes.get(e.start);
    if (returns !== undefined) symbol.returnType = returns;
    return symbol;
  }

  private resolveCalls(): ExtractedCall[] {
    const calls = this.calls;
    sortByPos(calls);
    const at = enclosing(this.entries);
    const out: ExtractedCall[] = [];
    // Attribute accesses: the first per caller, receiver and name (a caller is linked once anyway).
    const accessed = new Set<string>();
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i];
      const call: ExtractedCall = { caller: at(c.pos), callee: c.callee, line: c.row + 1 };
      if (c.receiver !== undefined) call.receiver = c.receiver;
      if (c.args !== undefined) call.args = c.args;
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

  private resolveRefs(): ExtractedReference[] {
    const refs = this.refs;
    sortByPos(refs);
    const declared = new Set<number>(this.notRefs);
    for (const e of this.entries) declared.add(e.nameStart);
    const builtins = this.spec.builtinTypes;
    const at = enclosing(this.entries);
    const seen = new Set<string>();
    const out: ExtractedReference[] = [];
    for (const r of refs) {
      if (r.name === '' || declared.has(r.pos) || builtins.has(r.name) || this.typeParams.has(r.name)) continue;
      const from = at(r.pos);
      const line = r.row + 1;
      const key = `${from}\0${r.name}\0${line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ from, name: r.name, line });
    }
    return out;
  }

  private resolveInherits(): ExtractedInherit[] {
    const byStart = new Map<number, Entry>();
    for (const e of this.entries) if (!byStart.has(e.start)) byStart.set(e.start, e);
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
    for (const i of this.inherits) {
      const owner = byStart.get(i.owner);
      if (owner !== undefined) add(owner.qname, i.parent, i.kind, i.qualifier);
    }
    for (const e of this.entries) if (e.kind === 'impl' && e.trait !== undefined) add(e.qname, e.trait, 'implements');
    return out;
  }

  /** Identifier text starting at a node, scanned in JS; other names (strings, computed) fall back to the node text. */
  private ident(node: Node): string {
    IDENT.lastIndex = node.startIndex;
    const m = IDENT.exec(this.source);
    if (m !== null) return m[0];
    const text = this.text(node);
    return /^(["'`]).*\1$/s.test(text) ? text.slice(1, -1) : text;
  }

  private text(node: Node): string {
    return this.source.slice(node.startIndex, node.endIndex);
  }
}

function sortByPos(items: { pos: number }[]): void {
  for (let i = 1; i < items.length; i++) {
    if (items[i - 1].pos > items[i].pos) {
      items.sort((a, b) => a.pos - b.pos);
      return;
    }
  }
}

