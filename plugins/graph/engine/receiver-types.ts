/**
 * Static types of receivers for the name resolver: what a binding, a field, a call's result or a
 * chain `a.b().c` denotes — a workspace class (instance or the class itself), a module, a
 * collection of something, a value known to be external (builtin or from an outside package), or
 * unknown. Types are read from the compact binding texts of the extraction (see ExtractedBinding)
 * and from declared return types; rules: docs/graph-model.md "Resolving names".
 */
import type { ExtractedBinding, Language } from './extraction.ts';
import type { NodeKind } from './graph.ts';

/** What an expression denotes. `conf` < 1 when the type went through an inferred step (a return type). */
export type TypeValue =
  | { kind: 'instance'; node: number; conf: number }
  | { kind: 'class'; node: number; conf: number }
  | { kind: 'function'; node: number; conf: number }
  | { kind: 'module'; files: string[]; conf: number }
  | { kind: 'collection'; element: TypeValue | null; conf: number }
  | { kind: 'wrapper'; inner: TypeValue | null; conf: number }
  /** One of several workspace instances (`FileField | DataField`, `Union[A, B]`): a member call may run any of theirs. */
  | { kind: 'union'; members: (TypeValue & { kind: 'instance' })[]; conf: number }
  /** A fixed-length tuple (`tuple[Pattern, str, dict[str, Convertor]]`): `a, b, c = f()` takes its items by position. */
  | { kind: 'tuple'; items: (TypeValue | null)[]; conf: number }
  /** A value typed only by what calling it gives (Python `Callable[[A], R]`, `Callable[..., R]`). */
  | { kind: 'callable'; result: TypeValue | null; conf: number }
  | { kind: 'external'; conf: number };

/** Most members a union inferred from several alternatives keeps (beyond, it says too little to link a call). */
export const MAX_UNION = 4;
/**
 * Most members of a union the code declares (`Protocols = Union[A, B, C, D, E]`, `x: A | B | C | D | E`):
 * the programmer named each, and a type checker links a call on it to every member.
 */
export const MAX_DECLARED_UNION = 12;

/**
 * The value of several alternatives: one when they agree, a union of their workspace instances (at
 * most `max` members, and never fewer than a union among them already holds), else null.
 */
export function unionOf(values: readonly (TypeValue | null)[], conf: number, max = MAX_UNION): TypeValue | null {
  const members: (TypeValue & { kind: 'instance' })[] = [];
  let limit = max;
  for (const v of values) {
    const list = v?.kind === 'union' ? v.members : v?.kind === 'instance' ? [v] : [];
    if (v?.kind === 'union') limit = Math.max(limit, v.members.length);
    for (const m of list) if (!members.some((x) => x.node === m.node)) members.push(m);
  }
  if (members.length === 0) return values.length > 0 && values.every((v) => v?.kind === 'external') ? { kind: 'external', conf } : null;
  if (members.length === 1) return { ...members[0], conf: Math.min(conf, members[0].conf) };
  return members.length <= limit ? { kind: 'union', members, conf } : null;
}

/** Bindings of one file by scope ('' = module level) and name, in source order. */
export type BindingIndex = Map<string, Map<string, ExtractedBinding[]>>;

/** Indexes a file's bindings for lookups by scope and name. */
export function indexBindings(bindings: readonly ExtractedBinding[] | undefined): BindingIndex {
  const index: BindingIndex = new Map();
  for (const b of bindings ?? []) {
    const key = b.scope ?? '';
    let byName = index.get(key);
    if (!byName) index.set(key, (byName = new Map()));
    const list = byName.get(b.name);
    if (list) list.push(b);
    else byName.set(b.name, [b]);
  }
  return index;
}

/**
 * The binding of `name` in exactly this scope that holds at `line`: the last one before it (a
 * closure's only inside the closure, after its first line), else the first one not in a closure.
 */
export function bindingAt(index: BindingIndex, scope: string, name: string, line: number): ExtractedBinding | undefined {
  const list = index.get(scope)?.get(name);
  if (!list) return undefined;
  let best: ExtractedBinding | undefined;
  for (const b of list) {
    if (b.endLine !== undefined) {
      if (b.line < line && line <= b.endLine) best = b;
    } else if (b.line < line || (b.line === line && b.source === 'param')) best = b;
  }
  return best ?? list.find((b) => b.endLine === undefined);
}

const COLLECTIONS = new Set([
  'list', 'List', 'Sequence', 'MutableSequence', 'Iterable', 'Iterator', 'Generator', 'AsyncIterator', 'AsyncIterable',
  'set', 'Set', 'FrozenSet', 'frozenset', 'AbstractSet', 'MutableSet', 'Collection', 'deque', 'Deque', 'tuple', 'Tuple',
  'ArrayList', 'LinkedList', 'HashSet', 'TreeSet', 'LinkedHashSet', 'Stream', 'Queue', 'Array', 'ReadonlyArray',
  'Vec', 'VecDeque', 'BTreeSet', 'HashSet', 'IntoIter', 'Iter', 'Slice',
]);
const MAPPINGS = new Set(['dict', 'Dict', 'Mapping', 'MutableMapping', 'DefaultDict', 'OrderedDict', 'Map', 'HashMap', 'TreeMap', 'LinkedHashMap', 'BTreeMap', 'Record', 'ReadonlyMap', 'ConcurrentHashMap']);
/** Whether a type name is a collection or mapping whose elements the receiver rules can follow (`ArrayList`, `Mapping`). */
export function isContainerTypeName(name: string): boolean {
  return COLLECTIONS.has(name) || MAPPINGS.has(name);
}
const TRANSPARENT = new Set(['Optional', 'Final', 'ClassVar', 'Annotated', 'Box', 'Rc', 'Arc', 'Ref', 'RefMut', 'Cow', 'Pin', 'MutexGuard', 'Readonly', 'Awaitable', 'Coroutine', 'Type', 'type']);
const WRAPPERS = new Set(['Option', 'Result', 'Optional', 'Promise', 'Future', 'CompletableFuture', 'Mutex', 'RwLock', 'RefCell', 'Cell', 'AtomicReference', 'WeakReference']);
/** Methods that take a wrapped value out (`opt.unwrap()`, `opt.get()`, `lock.lock()`). */
const UNWRAP = new Set(['unwrap', 'expect', 'unwrap_or', 'unwrap_or_else', 'unwrap_or_default', 'get', 'orElse', 'orElseThrow', 'orElseGet', 'join', 'lock', 'read', 'write', 'borrow', 'borrow_mut', 'as_ref', 'as_mut', 'clone', 'deref', 'result']);
/** Methods of a collection that give one of its elements. */
const ELEMENT = new Set(['get', 'first', 'last', 'pop', 'next', 'peek', 'front', 'back', 'popleft', 'getFirst', 'getLast', 'remove', 'at', 'find']);
/** Methods of a collection that give the same collection (iteration adapters). */
const SAME = new Set(['iter', 'iter_mut', 'into_iter', 'values', 'stream', 'filter', 'rev', 'copied', 'cloned', 'skip', 'take', 'sorted', 'slice', 'reversed', 'toList', 'collect', 'filterNot']);

/** Builtin and standard value types: calls on them never reach workspace code. */
const EXTERNAL_TYPES = new Set([
  'str', 'int', 'float', 'bool', 'bytes', 'bytearray', 'complex', 'object', 'None', 'string', 'number', 'boolean',
  'String', 'Integer', 'Long', 'Double', 'Boolean', 'Object', 'StringBuilder', 'error', 'rune', 'byte',
  'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'usize', 'isize',
  'i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64', 'f32', 'f64', 'char', 'str', 'Path', 'PathBuf', 'Date', 'RegExp', 'Error',
]);

/** Dynamic types (TS `any`, Python `Any`): they say nothing of the receiver, so it stays unknown. */
const DYNAMIC_TYPES = new Set(['any', 'Any']);

/** A type text split into its head name, generic arguments and container shape. */
export interface ParsedType {
  /** Dotted name (`pkg.Foo`, `Foo`), or '' when the type is not a plain name. */
  name: string;
  args: ParsedType[];
  /** Go/Java/TS/Rust slice, array, map or channel: the element (map value) type. */
  element?: ParsedType;
  /** A union of several types (`A | B`, `Union[A, B]`): its alternatives (name '' then). */
  union?: ParsedType[];
}

/** Parses a type as written in any of the languages into name + arguments; null when it is not a plain type. */
export function parseType(raw: string, language: Language): ParsedType | null {
  let t = raw.trim().replace(/^["']|["']$/g, '');
  // Optional markers and unions with nothing: `Foo | None`, `Foo | undefined`, `?Foo`, `Foo?`.
  t = t.replace(/\s*\|\s*(None|null|undefined)\b/g, '').replace(/^(None|null|undefined)\s*\|\s*/, '');
  const alternatives = splitTop(t.replace(/\|/g, ','));
  if (alternatives.length > 1 && !/^[^|]*[<[(]/.test(t)) {
    // A union of several plain types (`FileField | DataField`): each alternative, when every one parses.
    const union = alternatives.map((a) => parseType(a, language));
    return union.length <= MAX_DECLARED_UNION && union.every((u) => u !== null) ? { name: '', args: [], union: union as ParsedType[] } : null;
  }
  t = t.replace(/^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?|\*+|\?|mut\s+|dyn\s+|impl\s+|const\s+|final\s+|readonly\s+)+/, '').replace(/[?!]$/, '').trim();
  if (language === 'go') {
    if (t.startsWith('(')) {
      // Multiple results: the first one; named results `(r *Route, err error)` keep their type.
      // (`(*Cache[K, V], error)`: the brackets' comma and space belong to the type, not to a name.)
      const first = (splitTop(t.slice(1, -1))[0] ?? '').trim();
      const named = /^[A-Za-z_]\w*\s+(\S.*)$/.exec(first);
      return parseType(named ? named[1] : first, language);
    }
    const slice = /^\[[^\]]*\](.+)$/.exec(t);
    if (slice) return { name: '', args: [], element: parseType(slice[1], language) ?? undefined };
    if (t.startsWith('map[')) {
      const close = matchingClose(t, 3);
      return close < 0 ? null : { name: '', args: [], element: parseType(t.slice(close + 1), language) ?? undefined };
    }
    if (t.startsWith('chan ') || t.startsWith('<-chan ')) return { name: '', args: [], element: parseType(t.replace(/^<?-?chan\s+/, ''), language) ?? undefined };
  }
  if (t.endsWith('[]')) return { name: '', args: [], element: parseType(t.slice(0, -2), language) ?? undefined };
  if (language === 'rust' && t.startsWith('(') && t.endsWith(')')) {
    // A tuple `(Prerelease, &str)`: read as `tuple[…]`, so `let (pre, rest) = f()?` takes its items by position.
    const items = splitTop(t.slice(1, -1));
    if (items.length === 1) return parseType(items[0], language);
    return items.length === 0 ? null : { name: 'tuple', args: items.map((a) => parseType(a, language) ?? { name: '', args: [] }) };
  }
  if (t.startsWith('[') && language === 'rust') {
    const inner = t.slice(1, t.lastIndexOf(']')).split(';')[0];
    return { name: '', args: [], element: parseType(inner, language) ?? undefined };
  }
  const open = t.search(/[<[]/);
  const head = (open < 0 ? t : t.slice(0, open)).trim().replace(/::/g, '.');
  if (!/^[\p{ID_Start}_$][\p{ID_Continue}$.]*$/u.test(head)) return null;
  const args = open < 0 ? [] : splitTop(t.slice(open + 1, t.lastIndexOf(t[open] === '<' ? '>' : ']'))).map((a) => parseType(a, language) ?? { name: '', args: [] });
  return { name: head, args };
}

function matchingClose(t: string, open: number): number {
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    if (t[i] === '[') depth++;
    else if (t[i] === ']' && --depth === 0) return i;
  }
  return -1;
}

function splitTop(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '<' || c === '[' || c === '(' || c === '{') depth++;
    else if (c === '>' || c === ']' || c === ')' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out.filter(Boolean);
}

/** How a parsed type's head name is looked up (by the resolver, in the scope the type was written in). */
export type NameLookup = (name: string) => TypeValue | null;

/** The value a parsed type describes, with `lookup` resolving plain names. */
export function typeValue(t: ParsedType | null, lookup: NameLookup, conf: number): TypeValue | null {
  if (!t) return null;
  if (t.union) return unionOf(t.union.map((u) => typeValue(u, lookup, conf)), conf, MAX_DECLARED_UNION);
  if (t.element) return { kind: 'collection', element: typeValue(t.element, lookup, conf), conf };
  const last = t.name.slice(t.name.lastIndexOf('.') + 1);
  // `tuple[A, B]` (not `tuple[A, ...]`, whose `...` parses as a nameless type).
  if ((last === 'tuple' || last === 'Tuple') && t.args.length >= 2 && t.args.every((a) => a.name !== '' || a.union !== undefined || a.element !== undefined)) {
    return { kind: 'tuple', items: t.args.map((a) => typeValue(a, lookup, conf)), conf };
  }
  if (t.args.length && (COLLECTIONS.has(last) || MAPPINGS.has(last))) {
    const arg = MAPPINGS.has(last) ? t.args[t.args.length - 1] : t.args[0];
    return { kind: 'collection', element: typeValue(arg, lookup, conf), conf };
  }
  if (t.args.length && (last === 'type' || last === 'Type')) {
    // `type[Foo]`: the class itself (calling it makes a Foo); `type[A | B]`: calling it makes an A or a B.
    const v = typeValue(t.args[0], lookup, conf);
    if (v?.kind === 'instance') return { kind: 'class', node: v.node, conf: v.conf };
    return v?.kind === 'union' ? { kind: 'callable', result: v, conf } : v;
  }
  if (t.args.length && TRANSPARENT.has(last)) return typeValue(t.args[0], lookup, conf);
  if (t.args.length === 2 && last === 'Callable') return { kind: 'callable', result: typeValue(t.args[1], lookup, conf), conf };
  if (t.args.length > 1 && last === 'Union') return unionOf(t.args.map((u) => typeValue(u, lookup, conf)), conf, MAX_DECLARED_UNION);
  if (t.args.length && WRAPPERS.has(last)) return { kind: 'wrapper', inner: typeValue(t.args[0], lookup, conf), conf };
  if (DYNAMIC_TYPES.has(t.name)) return null;
  if (EXTERNAL_TYPES.has(t.name) || COLLECTIONS.has(t.name) || MAPPINGS.has(t.name)) return { kind: 'external', conf };
  const found = t.name ? lookup(t.name) : null;
  if (found?.kind === 'class') return { kind: 'instance', node: found.node, conf: Math.min(conf, found.conf) };
  // Anything else a lookup answers is already a value's type: external, or what a type alias stands for.
  return found ?? null;
}

/** One step of a chain: `.name` (member), `()` call, `[]` index, `{}` literal, `.(T)` Go assertion, `[#k]` the k-th item an unpacking takes. */
export type ChainStep = { op: 'member'; name: string } | { op: 'call' } | { op: 'index' } | { op: 'literal' } | { op: 'assert'; type: string } | { op: 'unwrap' } | { op: 'nth'; k: number };

/** A receiver or value text split into its head and steps; null when it is not a plain chain. */
export interface Chain {
  head: string;
  /** `new Foo()`: the head is constructed. */
  construct: boolean;
  /** A type written as a value head (`[]*Route{}`, `map[string]T{}`). */
  typeHead?: string;
  steps: ChainStep[];
}

/** A Python conditional value `a if c else b`: its two branches (the condition dropped). */
export const PY_CONDITIONAL = /^(.+?)\s*\bif\b.+?\belse\b\s*(.+)$/;

const CHAIN_HEAD = /^(?:await\s+|new\s+|yield\s+|&|\*|!)*([\p{ID_Start}_$][\p{ID_Continue}$]*)/u;

/** Splits an elided value (`r.NewRoute().Methods()`, `Foo::new()`, `&Foo{}`, `new a.B<C>()`) into steps. */
export function parseChain(text: string): Chain | null {
  let t = text.trim();
  if (t === '' || t.includes('…')) return null;
  const construct = /^(?:await\s+)?new\s/.test(t);
  const composite = /^&?((?:\[[^\]]*\]|map\[[^\]]*\])[\w.*[\]]+)\{\}$/.exec(t);
  if (composite) return { head: '', construct: false, typeHead: composite[1], steps: [{ op: 'literal' }] };
  const m = CHAIN_HEAD.exec(t);
  if (!m) return null;
  const steps: ChainStep[] = [];
  t = t.slice(m[0].length);
  while (t.length) {
    let s: RegExpExecArray | null;
    if (t.startsWith('()')) {
      steps.push({ op: 'call' });
      t = t.slice(2);
    } else if (t.startsWith('[]')) {
      steps.push({ op: 'index' });
      t = t.slice(2);
    } else if ((s = /^\[#(\d+)\]/.exec(t))) {
      steps.push({ op: 'nth', k: Number(s[1]) });
      t = t.slice(s[0].length);
    } else if (t.startsWith('{}')) {
      steps.push({ op: 'literal' });
      t = t.slice(2);
    } else if (t[0] === '?' && !t.startsWith('?.')) {
      steps.push({ op: 'unwrap' });
      t = t.slice(1);
    } else if (t[0] === '!') {
      t = t.slice(1);
    } else if (t[0] === '<') {
      // Generic arguments of a constructed type (`new Foo<Bar>()`) or turbofish do not change the head.
      const close = t.indexOf('>');
      if (close < 0) return null;
      t = t.slice(close + 1);
    } else if ((s = /^\.\(([^)]*)\)/.exec(t))) {
      steps.push({ op: 'assert', type: s[1] });
      t = t.slice(s[0].length);
    } else if ((s = /^(?:\?\.|\.|::)([\p{ID_Start}_$][\p{ID_Continue}$]*)/u.exec(t))) {
      steps.push({ op: 'member', name: s[1] });
      t = t.slice(s[0].length);
    } else return null;
  }
  if (construct) {
    // `new a.b.Foo()` constructs the last named thing: fold the dotted path into the head's steps.
    const call = steps.findIndex((x) => x.op === 'call');
    if (call >= 0) steps[call] = { op: 'literal' };
  }
  return { head: m[1], construct, steps };
}

/** Element of a collection value, or null. */
export function elementOf(v: TypeValue | null): TypeValue | null {
  if (!v) return null;
  if (v.kind === 'collection') return v.element;
  if (v.kind === 'tuple') return unionOf(v.items, v.conf);
  if (v.kind === 'external') return v;
  return null;
}

/** The k-th item an unpacking (`a, b = v`) takes: a tuple's item at k, a collection's element. */
export function nthOf(v: TypeValue | null, k: number): TypeValue | null {
  return v?.kind === 'tuple' ? (v.items[k] ?? null) : elementOf(v);
}

/** What a method call on a collection or wrapper gives, when it is one of the known shapes. */
export function builtinMethodResult(v: TypeValue, method: string): TypeValue | null | undefined {
  if (v.kind === 'collection') {
    if (SAME.has(method)) return v;
    if (ELEMENT.has(method)) return v.element;
    return { kind: 'external', conf: v.conf };
  }
  if (v.kind === 'wrapper') {
    if (UNWRAP.has(method)) return v.inner;
    return { kind: 'external', conf: v.conf };
  }
  return undefined;
}

/** Kinds a type name may resolve to. */
export const TYPE_NODE_KINDS: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);

/** A Java cast around a receiver (`((Attributes) value)`): the type's text and the operand. */
const JAVA_CAST = /^\(\s*\(\s*([A-Za-z_$][\w$.]*(?:<[^()]*>)?(?:\[\])*)\s*\)\s*(.+)\)$/s;

/** Whether an expression's parentheses pair up (`popStack()`, not `a) + (b`). */
function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** The type a Java receiver `((Type) value)` is cast to, or null when the text is no cast. */
export function javaCast(text: string): string | null {
  const cast = JAVA_CAST.exec(text.trim());
  return cast && balanced(cast[2]) ? cast[1] : null;
}
