/**
 * Java overload choice: a call resolved by name to one method (or a `new` to its class) is narrowed to
 * the overloads of that name — in the class and its ancestors, or the class's constructors — whose
 * parameter count fits the arguments (varargs aware), then by simple static argument types. Several
 * that still fit are all linked at half the confidence.
 */
import type { ExtractedCall } from './extraction.ts';
import type { Dependencies, NameResolution, SymbolTables } from './resolve-names.ts';
import { baseType } from './parsers/java-arity.ts';

/** The static type (as written) of an argument expression at the call (`x`, `this`, `this.f`, `g()`), when known. */
export type ArgTypeOf = (name: string) => string | undefined;

/** Confidence multiplier when arity and argument types leave several overloads. */
export const AMBIGUOUS_OVERLOAD = 0.5;
const MAX_LINKED = 3;
const CLASS_LIKE: ReadonlySet<string> = new Set(['class', 'interface', 'type']);
const MAX_DEPTH = 4;

// Java's primitive types, in the order widening goes (JLS 5.1.2): a narrower one widens to any wider one
// (not byte/short to char, nor char to short); each boxes to its wrapper (JLS 5.1.7).
const WIDENS_TO: Readonly<Record<string, readonly string[]>> = {
  byte: ['short', 'int', 'long', 'float', 'double'],
  short: ['int', 'long', 'float', 'double'],
  char: ['int', 'long', 'float', 'double'],
  int: ['long', 'float', 'double'],
  long: ['float', 'double'],
  float: ['double'],
  double: [],
  boolean: [],
};
const BOXES_TO: Readonly<Record<string, string>> = {
  byte: 'Byte', short: 'Short', char: 'Character', int: 'Integer', long: 'Long', float: 'Float', double: 'Double', boolean: 'Boolean',
};
const UNBOXES_TO: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(BOXES_TO).map(([p, b]) => [b, p]));
const PLAIN_TYPES: ReadonlySet<string> = new Set(['String', 'CharSequence', 'Number', ...Object.keys(BOXES_TO), ...Object.values(BOXES_TO)]);

const FINAL_TYPES: ReadonlySet<string> = new Set([...PLAIN_TYPES].filter((t) => t !== 'CharSequence' && t !== 'Number'));

/** The type an argument that is a lambda or a method reference has (`:->` from the parser): any functional interface. */
export const FUNCTIONAL_ARG = '->';

/**
 * JDK types no lambda or method reference converts to: classes, and interfaces with more than one
 * abstract method (`Iterable`, `Comparable`, `Runnable`, `Closeable`, `Readable`, `Flushable` are
 * functional, so not here).
 */
const NOT_FUNCTIONAL: ReadonlySet<string> = new Set([
  'Object', 'String', 'CharSequence', 'Number', 'StringBuilder', 'StringBuffer', 'Class', 'Type', 'Appendable', 'Enum', 'Thread',
  'Collection', 'List', 'Set', 'SortedSet', 'NavigableSet', 'Queue', 'Deque', 'Map', 'SortedMap', 'NavigableMap', 'Iterator', 'ListIterator',
  'ArrayList', 'LinkedList', 'ArrayDeque', 'HashSet', 'LinkedHashSet', 'TreeSet', 'HashMap', 'LinkedHashMap', 'TreeMap', 'Optional',
  'File', 'Path', 'URL', 'URI', 'Charset', 'InputStream', 'OutputStream', 'Reader', 'Writer', 'BigDecimal', 'BigInteger', 'Pattern', 'Matcher',
]);

/** Narrows a Java call's targets to the overloads its arguments fit; other answers pass through. */
export function pickOverloads(r: NameResolution, call: ExtractedCall, path: string, argType: ArgTypeOf, tables: SymbolTables, deps: Dependencies, outside?: (cls: number) => boolean): NameResolution {
  const args = call.args;
  if (args === undefined || r.targets.length === 0) return r;
  const out: number[] = [];
  let ambiguous = false;
  for (const t of r.targets) {
    const n = tables.node(t);
    if (n.language !== 'java') {
      out.push(t);
      continue;
    }
    const cands = n.kind === 'class' || n.kind === 'type' ? (n.label === call.callee ? constructorsOf(t, tables) : []) : overloadsFrom(t, tables, deps);
    if (cands.length === 0) {
      out.push(t);
      continue;
    }
    const fit = choose(cands, args, argType, tables, deps, { path, line: call.line });
    // Nothing fits: a method the class inherits from a base outside the workspace (`peek()` beside our
    // `peek(char[])` in a subclass of a library reader) is that base's; otherwise (a parameter list we
    // misread, an implicit constructor) keep the name's answer.
    if (fit.length === 0 && n.kind === 'method' && outside !== undefined && ownerIsOutside(t, tables, outside)) continue;
    if (fit.length === 0) out.push(t);
    else {
      ambiguous ||= fit.length > 1;
      for (const f of fit) if (!out.includes(f)) out.push(f);
    }
  }
  const targets = out.slice(0, MAX_LINKED);
  return { targets, confidence: ambiguous ? r.confidence * AMBIGUOUS_OVERLOAD : r.confidence };
}

/** Whether the class declaring a method extends a class outside the workspace. */
function ownerIsOutside(method: number, tables: SymbolTables, outside: (cls: number) => boolean): boolean {
  const n = tables.node(method);
  const q = n.qualifiedName ?? n.label;
  const cut = q.lastIndexOf('.');
  const owner = cut > 0 ? tables.symbolIn(n.path, q.slice(0, cut)) : -1;
  return owner >= 0 && outside(owner);
}

/** The constructors a class declares (`Foo.Foo`, `Foo.Foo#2`, …). */
export function constructorsOf(cls: number, tables: SymbolTables): number[] {
  const n = tables.node(cls);
  return family(n.path, n.qualifiedName ?? n.label, n.label, tables);
}

/** Picks constructors for `this(…)`/`super(…)`; the class itself when it declares none (the implicit one). */
export function pickConstructor(cls: number, call: ExtractedCall, path: string, argType: ArgTypeOf, tables: SymbolTables, deps: Dependencies): NameResolution {
  const cands = constructorsOf(cls, tables);
  if (cands.length === 0) return { targets: [cls], confidence: 1 };
  const fit = call.args === undefined ? cands : choose(cands, call.args, argType, tables, deps, { path, line: call.line });
  if (fit.length === 0) return { targets: cands.slice(0, MAX_LINKED), confidence: AMBIGUOUS_OVERLOAD };
  return { targets: fit.slice(0, MAX_LINKED), confidence: fit.length > 1 ? AMBIGUOUS_OVERLOAD : 1 };
}

/** `prefix.name`, `prefix.name#2`, … in a file. */
function family(path: string, prefix: string, name: string, tables: SymbolTables): number[] {
  const out: number[] = [];
  for (let k = 1; ; k++) {
    const i = tables.memberIn(path, prefix, k === 1 ? name : `${name}#${k}`);
    if (i < 0) return out;
    out.push(i);
  }
}

/** Methods named like `method` in its class and the class's ancestors, most derived first. */
function overloadsFrom(method: number, tables: SymbolTables, deps: Dependencies): number[] {
  const n = tables.node(method);
  const q = n.qualifiedName ?? n.label;
  const cut = q.lastIndexOf('.');
  const name = q.slice(cut + 1).replace(/#\d+$/, '');
  if (cut < 0) return family(n.path, '', name, tables);
  const owner = tables.symbolIn(n.path, q.slice(0, cut));
  if (owner < 0) return family(n.path, q.slice(0, cut), name, tables);
  const out: number[] = [];
  const seen: number[] = [];
  const walk = (cls: number, depth: number): void => {
    if (seen.includes(cls) || depth > MAX_DEPTH) return;
    seen.push(cls);
    const c = tables.node(cls);
    if (depth > 0) deps.push(c.label);
    // A superclass's private methods are not inherited.
    const own = family(c.path, c.qualifiedName ?? c.label, name, tables);
    out.push(...(depth > 0 ? own.filter((m) => !tables.isPrivate(m)) : own));
    for (const p of tables.parentsOf(cls)) walk(p, depth + 1);
  };
  walk(owner, 0);
  return out;
}

/** The candidates whose parameters the arguments fit best; an override hides the ancestor's same signature. */
function choose(cands: readonly number[], args: readonly string[], argType: ArgTypeOf, tables: SymbolTables, deps: Dependencies, at: CallSite): number[] {
  const fixed: number[] = [];
  const varargs: number[] = [];
  const signatures = new Map<string, number>();
  for (const c of cands) {
    const params = tables.paramsOf(c);
    if (params === undefined) continue;
    const key = params.map(baseTypeOf).join(',');
    const prev = signatures.get(key);
    if (prev !== undefined) {
      // One signature twice in one class: bodies of enum constants or anonymous classes; the one around the call wins.
      if (!sameClassNearer(c, prev, at, tables)) continue; // else an override further down, hidden
      for (const list of [fixed, varargs]) {
        const k = list.indexOf(prev);
        if (k >= 0) list.splice(k, 1);
      }
    }
    signatures.set(key, c);
    const spread = params.length > 0 && params[params.length - 1].endsWith('...');
    if (!spread && params.length === args.length) fixed.push(c);
    else if (spread && args.length >= params.length - 1) varargs.push(c);
  }
  if (fixed.length + varargs.length < 2) return fixed.length ? fixed : varargs;
  const types = args.map((a) => (a.startsWith(':') ? a.slice(1) : a === '' ? undefined : argTypeOf(argType(a))));
  const known = new Map<string, ReadonlySet<string>>();
  const supers = (type: string): ReadonlySet<string> => {
    let out = known.get(type);
    if (!out) known.set(type, (out = supertypes(type, tables, deps)));
    return out;
  };
  const takesLambda = (type: string): boolean => {
    if (type.length === 1) return true; // a type variable
    if (WIDENS_TO[type] !== undefined || type.endsWith('[]') || NOT_FUNCTIONAL.has(type)) return false;
    // A class of the workspace (an enum, a record, an abstract class) is no interface; unknown types may be.
    deps.push(type);
    const named = tables.named(type).map((i) => tables.node(i).kind);
    return !(named.includes('class') && !named.includes('interface'));
  };
  const best = (list: readonly number[]): number[] => {
    let out: number[] = [];
    let bestScore = -1;
    for (const c of list) {
      const score = typeScore(tables.paramsOf(c) ?? [], types, supers, takesLambda);
      if (score < 0) continue;
      if (score > bestScore) {
        out = [c];
        bestScore = score;
      } else if (score === bestScore) out.push(c);
    }
    return out;
  };
  // Java tries fixed arity before varargs (JLS 15.12.2): varargs only when no fixed-arity overload can take the arguments.
  const typed = best(fixed);
  if (typed.length) return typed;
  const spread = best(varargs);
  if (spread.length) return spread;
  return fixed.length ? fixed : varargs;
}

/** Where a call is. */
interface CallSite {
  path: string;
  line: number;
}

/** Whether `c` is in the same class and file as `prev`, and declared nearer the call (in the caller's file) than it. */
function sameClassNearer(c: number, prev: number, at: CallSite, tables: SymbolTables): boolean {
  const a = tables.node(c);
  const b = tables.node(prev);
  if (a.path !== at.path || b.path !== at.path) return false;
  const owner = (q: string | undefined): string => (q ?? '').replace(/\.[^.]*$/, '');
  if (owner(a.qualifiedName) !== owner(b.qualifiedName)) return false;
  return Math.abs(a.startLine - at.line) < Math.abs(b.startLine - at.line);
}

/**
 * How well arguments of known static types fit a parameter list, or -1 when one plainly cannot be
 * passed (a lambda or method reference to anything but a possible functional interface). Java's phases first (JLS 15.12.2): a list the arguments fit without boxing or unboxing beats
 * any that needs them (+1000). Then 20 per exact type, 10 per argument of a subtype, a primitive
 * widened less a step per type it passes: the nearest primitive is the most specific (`int` picks
 * `long` over `float` over `double`). Arguments of unknown type count for every list.
 */
function typeScore(params: readonly string[], types: readonly (string | undefined)[], supers: (type: string) => ReadonlySet<string>, takesLambda: (type: string) => boolean): number {
  let score = 0;
  let boxed = false;
  for (let i = 0; i < types.length; i++) {
    const a = types[i];
    if (a === undefined) continue;
    const param = params[Math.min(i, params.length - 1)] ?? '';
    // A varargs parameter takes an array of its type, or its elements one by one.
    const p = param.endsWith('...') && !a.endsWith('[]') ? baseType(param.slice(0, -3)) : baseTypeOf(param);
    if (a === FUNCTIONAL_ARG) {
      // A lambda or method reference converts to a functional interface only (JLS 15.27.3, 15.13.2).
      if (!takesLambda(p)) return -1;
      continue;
    }
    if (p === a) {
      score += 20;
      continue;
    }
    const widens = WIDENS_TO[a];
    if (widens !== undefined) {
      // A primitive argument: widened to a primitive, or boxed (then widened as a reference: `Integer` to `Number`).
      const steps = widens.indexOf(p);
      if (steps >= 0) score += 10 - steps - 1;
      else if (p === BOXES_TO[a] || p === 'Object' || p === 'Comparable' || (p === 'Number' && a !== 'boolean' && a !== 'char')) boxed = true;
      else if (PLAIN_TYPES.has(p) || WIDENS_TO[p] !== undefined || JDK_TYPES.has(p)) return -1;
      else boxed = true; // a type variable, or an interface the wrapper implements
      continue;
    }
    const unboxed = UNBOXES_TO[a];
    if (unboxed !== undefined && WIDENS_TO[p] !== undefined) {
      // A wrapper passed to a primitive: unboxed, then widened.
      if (p !== unboxed && !WIDENS_TO[unboxed].includes(p)) return -1;
      boxed = true;
      continue;
    }
    if (WIDENS_TO[p] !== undefined) return -1; // a reference type is no primitive
    // An array is only an array, an `Object`, `Cloneable`, `Serializable` or a type variable.
    if (a.endsWith('[]') && !p.endsWith('[]') && p.length > 1 && p !== 'Object' && p !== 'Cloneable' && p !== 'Serializable') return -1;
    if (p === 'Object' && a.length > 1) score += 10;
    // A final JDK class (`String`, a wrapper) is nothing but itself and its supertypes.
    else if (FINAL_TYPES.has(a) && p.length > 1 && !supers(a).has(p)) return -1;
    // A class of ours is never a String or a wrapper (all final); a one-letter name may be a type variable.
    else if (FINAL_TYPES.has(p) && !PLAIN_TYPES.has(a) && a.length > 1) return -1;
    else if (supers(a).has(p)) score += 10;
    else if (JDK_SUPERTYPES[a] !== undefined && JDK_TYPES.has(p)) return -1; // `Set` is no `Iterator`
  }
  return score + (boxed ? 0 : 1000);
}

const CLOSEABLE = ['Closeable', 'AutoCloseable'];
const CONSTANT = ['Serializable', 'Constable', 'ConstantDesc'];
const READER = ['Readable', ...CLOSEABLE];
const WRITER = ['Appendable', 'Flushable', ...CLOSEABLE];
/** Common JDK types and all their supertypes but `Object`, for arguments of collection, text, I/O and wrapper types. */
const JDK_SUPERTYPES: Readonly<Record<string, readonly string[]>> = {
  Collection: ['Iterable'],
  List: ['Collection', 'Iterable'],
  Set: ['Collection', 'Iterable'],
  Queue: ['Collection', 'Iterable'],
  Deque: ['Queue', 'Collection', 'Iterable'],
  ArrayList: ['List', 'AbstractList', 'Collection', 'Iterable'],
  LinkedList: ['List', 'Deque', 'Queue', 'Collection', 'Iterable'],
  ArrayDeque: ['Deque', 'Queue', 'Collection', 'Iterable'],
  HashSet: ['Set', 'Collection', 'Iterable'],
  LinkedHashSet: ['HashSet', 'Set', 'Collection', 'Iterable'],
  TreeSet: ['SortedSet', 'Set', 'Collection', 'Iterable'],
  Map: [],
  HashMap: ['Map'],
  LinkedHashMap: ['HashMap', 'Map'],
  TreeMap: ['SortedMap', 'Map'],
  Iterator: [],
  StringBuilder: ['CharSequence', 'Appendable', 'Comparable'],
  String: ['CharSequence', 'Comparable'],
  ...Object.fromEntries(['Byte', 'Short', 'Integer', 'Long', 'Float', 'Double'].map((t) => [t, ['Number', 'Comparable']])),
  Character: ['Comparable'],
  Class: ['Type', 'GenericDeclaration', 'AnnotatedElement'],
  Boolean: ['Comparable'],
};
// The marker interfaces many JDK classes implement are left out: a list above that omits one says nothing.
const JDK_TYPES: ReadonlySet<string> = new Set([...Object.keys(JDK_SUPERTYPES), ...Object.values(JDK_SUPERTYPES).flat()].filter((t) => !CONSTANT.includes(t)));

/** Supertype names of a type: from the JDK table, or the ancestors of workspace classes of that name. */
function supertypes(type: string, tables: SymbolTables, deps: Dependencies): ReadonlySet<string> {
  const jdk = JDK_SUPERTYPES[type];
  if (jdk !== undefined) return new Set(jdk);
  deps.push(type);
  const out = new Set<string>();
  const seen: number[] = [];
  const walk = (cls: number, depth: number): void => {
    if (seen.includes(cls) || depth > MAX_DEPTH) return;
    seen.push(cls);
    for (const p of tables.parentsOf(cls)) {
      const label = tables.node(p).label;
      deps.push(label);
      out.add(label);
      walk(p, depth + 1);
    }
  };
  for (const i of tables.named(type)) if (CLASS_LIKE.has(tables.node(i).kind)) walk(i, 0);
  return out;
}

function argTypeOf(declared: string | undefined): string | undefined {
  return declared === undefined || declared === 'var' ? undefined : baseTypeOf(declared);
}

function baseTypeOf(param: string): string {
  return baseType(param.replace(/\.\.\.$/, '[]'));
}
