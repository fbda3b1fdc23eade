/** Nesting of declarations by source position: qualified names, kinds, parents, and the symbol enclosing any position. */
import type { EntryKind } from './query-spec.ts';

/** A declaration, or a scope that is not a symbol (Rust impl, inline module, TS namespace), by source range. */
export interface Entry {
  kind: EntryKind;
  start: number;
  end: number;
  nameStart: number;
  name: string;
  startRow: number;
  /** Go receiver type: the method's qualifiedName is `qualifier.name`. */
  qualifier?: string;
  /** Rust `impl Trait for Type`: the trait's name. */
  trait?: string;
  /** Declared parameter types (languages with overloads). */
  params?: string[];
  /** A declaration without a body (a TS overload or interface signature). */
  bodiless?: boolean;
  qname: string;
  /** qualifiedName of the nearest enclosing symbol, itself included; null outside any. */
  caller: string | null;
  exported: boolean;
  insideFunction: boolean;
}

const CONTAINER_KINDS: ReadonlySet<EntryKind> = new Set<EntryKind>(['class', 'interface', 'type', 'impl']);

/** Sorts entries outer-first, sets qname (`#2` for repeats), kind, caller and insideFunction, and visits each symbol entry in order. */
export function nestEntries(entries: Entry[], visit: (entry: Entry, outer: Entry | undefined, parent: string | undefined) => void): void {
  entries.sort(byRange);
  const taken = new Map<string, number>();
  const stack: Entry[] = [];
  for (const e of entries) {
    // A function directly inside a class, interface, type or impl is a method.
    popEnded(stack, e);
    const outer = stack.length > 0 ? stack[stack.length - 1] : undefined;
    e.insideFunction = outer !== undefined && (outer.insideFunction || outer.kind === 'function' || outer.kind === 'method');
    let qname: string;
    let parent: string | undefined;
    if (e.qualifier !== undefined) {
      qname = `${e.qualifier}.${e.name}`;
      parent = e.qualifier;
      e.kind = 'method';
    } else {
      qname = outer === undefined ? e.name : `${outer.qname}.${e.name}`;
      if (outer !== undefined && outer.kind !== 'scope') parent = outer.qname;
      if (e.kind === 'function' && outer !== undefined && CONTAINER_KINDS.has(outer.kind)) e.kind = 'method';
    }
    stack.push(e);
    if (e.kind === 'impl' || e.kind === 'scope') {
      e.qname = qname;
      // What an impl header names (trait, bounds) is referenced by the implementing type.
      e.caller = e.kind === 'impl' ? qname : (outer?.caller ?? null);
      continue;
    }
    // Overloads and redefinitions share a name: the second is `name#2`, and so on.
    const count = taken.get(qname) ?? 0;
    taken.set(qname, count + 1);
    if (count > 0) qname = `${qname}#${count + 1}`;
    e.qname = qname;
    e.caller = qname;
    visit(e, outer, parent);
  }
}

/** Outer declarations first: by start, then longest. */
function byRange(a: Entry, b: Entry): number {
  return a.start - b.start || b.end - a.end;
}

function popEnded(stack: Entry[], next: { start: number; end: number }): void {
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    // Equal ranges are siblings (`const a = () => 1, b = ...` shares one statement node).
    if (top.end <= next.start || (top.start === next.start && top.end === next.end)) stack.pop();
    else break;
  }
}

/** A lookup of the nearest enclosing symbol for positions asked in non-decreasing order, over entries already nested. */
export function enclosing(entries: readonly Entry[]): (pos: number) => string | null {
  const stack: Entry[] = [];
  let next = 0;
  return (pos: number): string | null => {
    while (next < entries.length && entries[next].start <= pos) {
      popEnded(stack, entries[next]);
      stack.push(entries[next]);
      next++;
    }
    while (stack.length > 0 && stack[stack.length - 1].end <= pos) stack.pop();
    return stack.length > 0 ? stack[stack.length - 1].caller : null;
  };
}
