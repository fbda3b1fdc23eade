/**
 * Collecting one file's query captures: each match, routed by role (query-extractor.ts documents
 * the capture names), is read into raw findings — declarations, calls, references, imports,
 * parents, docs, visibility marks and bindings — kept by source offset. Nothing is resolved here;
 * capture-resolution.ts turns the findings into a FileExtraction once every match is in.
 */
import type { Node, QueryCapture } from 'web-tree-sitter';
import type { ExtractedImport } from '../extraction.ts';
import { BindingCollector } from './binding-collector.ts';
import { valueText } from './binding-text.ts';
import { docstringDoc, type CommentSpan } from './doc-text.ts';
import { lastSegment, receiverText } from './name-text.ts';
import type { Entry } from './nesting.ts';
import { isBrokenCall, isMisparsedDef, type ErrorRegions } from './parse-errors.ts';
import type { EntryKind, QueryLanguageSpec } from './query-spec.ts';
import { indexLines, lineAt, type LineIndex } from './source-lines.ts';

export interface PendingCall {
  pos: number;
  row: number;
  callee: string;
  receiver?: string;
  args?: string[];
  within?: string;
  access?: boolean;
}

export interface PendingRef {
  pos: number;
  row: number;
  name: string;
}

export interface PendingInherit {
  owner: number;
  parent: string;
  qualifier?: string;
  kind: 'extends' | 'implements';
  pos: number;
}

/** The routing prefixes of capture names (see query-extractor.ts). */
export const ROLES = ['def', 'doc', 'import', 'call', 'inherit', 'ref', 'export', 'comment', 'bind'] as const;
export type Role = (typeof ROLES)[number];

const IDENT = /[#$\p{ID_Continue}]+/uy;

/** A slice type named as a definition (a Rust impl on `&mut [core::mem::MaybeUninit<u8>]`) without paths or spaces: `[MaybeUninit<u8>]`. */
function sliceTypeName(name: string): string {
  if (name[0] !== '[' || name.at(-1) !== ']') return name;
  return name.replace(/\s+/g, '').replace(/(?:[A-Za-z_]\w*::)+/g, '');
}
/** A plain, possibly dotted, name. */
export const DOTTED = /^[\p{ID_Start}_][\p{ID_Continue}.]*$/u;

/** The condition of Python's `if TYPE_CHECKING:` (`typing.` or an alias qualifying it, `not` excluded). */
const TYPE_CHECKING = /^(?:[\w]+\.)?TYPE_CHECKING$/;

/** Whether an import statement sits in the body of an `if TYPE_CHECKING:` (Python; its `else` runs at run time). */
function underTypeChecking(node: Node): boolean {
  for (let child: Node = node, p = node.parent; p; child = p, p = p.parent) {
    if (p.type === 'if_statement') {
      const condition = p.childForFieldName('condition');
      const body = p.childForFieldName('consequence');
      return condition !== null && body !== null && body.id === child.id && TYPE_CHECKING.test(condition.text.trim());
    }
    if (p.type === 'function_definition' || p.type === 'class_definition') return false;
  }
  return false;
}

/** The raw findings of one file; fields are read by capture-resolution.ts. */
export class FileCaptures {
  readonly lines: LineIndex;
  readonly entries: Entry[] = [];
  calls: PendingCall[] = [];
  refs: PendingRef[] = [];
  inherits: PendingInherit[] = [];
  imports: ExtractedImport[] = [];
  /** Source offset of the node each import came from (same index as `imports`). */
  readonly importPos: number[] = [];
  readonly comments: CommentSpan[] = [];
  readonly docstrings = new Map<number, string>();
  readonly marks = new Set<number>();
  readonly privates = new Set<number>();
  readonly anchors = new Map<number, number>();
  readonly exportNames = new Set<string>();
  readonly typeParams = new Set<string>();
  readonly notRefs = new Set<number>();
  /**
   * Name offsets of the callees of receiver calls (`a.b()`). An `@call.access` name found here is a
   * callee, not an attribute read or write, and is dropped once every match is in (resolveCalls):
   * a set lookup instead of walking up the tree per attribute, in whatever order the matches come.
   */
  readonly calleeNames = new Set<number>();
  readonly binds: BindingCollector;
  /** Declarations by node start and name offset, to merge two patterns' matches of one node. */
  private readonly defAt = new Map<number, Entry>();

  constructor(
    readonly spec: QueryLanguageSpec,
    readonly source: string,
    /** Null for a clean parse. */
    readonly regions: ErrorRegions | null,
  ) {
    this.lines = indexLines(source);
    // Python type comments (`# type: T`) are looked for only in a file that has one.
    this.binds = new BindingCollector(spec.closureTypes, (n) => this.text(n), (n) => this.ident(n), spec.language === 'python' && source.includes('# type:'));
  }

  /** Reads one match's captures into the findings of its role. */
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
    const name = sliceTypeName(this.ident(nameNode));
    if (name === '') return;
    if (this.regions !== null && isMisparsedDef(node, nameNode, name, this.regions, this.spec.reservedWords)) return;
    // Two patterns may declare one node (an object-literal method, and the same method of `Foo.prototype
    // = {…}`): the one naming its owner (a qualifier) stands.
    const key = node.startIndex * 4096 + (nameNode.startIndex - node.startIndex);
    const twin = this.defAt.get(key);
    if (twin !== undefined && twin.end === node.endIndex) {
      if (qualifier !== undefined && twin.qualifier === undefined) {
        twin.qualifier = qualifier;
        twin.kind = kind;
      }
      return;
    }
    const params = this.spec.params?.(node, (n) => this.text(n));
    const entry: Entry = {
      ...(params === undefined ? {} : { params }),
      ...(node.type.endsWith('_signature') ? { bodiless: true } : {}),
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
    };
    this.entries.push(entry);
    this.defAt.set(key, entry);
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
    const pos = nameNode.startIndex;
    if (access) {
      // An attribute read or write: not a call's callee (those come from the call patterns), nor a dunder (protocol machinery, not a property).
      if (this.calleeNames.has(pos)) return;
      const text = this.text(nameNode);
      if (text.startsWith('__') && text.endsWith('__')) return;
    } else if (recvStart >= 0) this.calleeNames.add(pos);
    if (this.regions !== null && isBrokenCall(nameNode, this.regions)) return;
    const callee = this.ident(nameNode);
    if (callee === '') return;
    const call: PendingCall = { pos, row: nameNode.startPosition.row, callee };
    const args = this.spec.args?.(nameNode, (n) => this.text(n));
    if (args !== undefined) call.args = args;
    if (recvStart < 0) {
      const within = this.spec.within?.(nameNode, (n) => this.text(n));
      if (within !== undefined) call.within = within;
    }
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
      else if (c.name === 'import.spec') {
        // A statement on the same line may have named it already (`var x = require('m')` binds x).
        const specifier = this.text(node);
        if (!this.imports.some((i) => i.line === line && i.specifier === specifier)) this.imports.push({ specifier, line, names: [] });
      }
      const typeOnly = c.name === 'import.stmt' && underTypeChecking(node);
      for (let i = before; i < this.imports.length; i++) {
        this.importPos[i] = node.startIndex;
        if (typeOnly) this.imports[i].typeOnly = true;
      }
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
