/**
 * Receiver types for call resolution: evaluates a receiver text (`self.x`, `r.NewRoute()`, `rs[]`,
 * `Foo::new()`) from a position in a file to a TypeValue, through the file's bindings, the fields
 * and declared return types of workspace classes and functions, and the file's imports. Every look
 * into another file records the names it read in `deps` (incremental invalidation).
 */
import { RETURN_BINDING, type ExtractedBinding } from './extraction.ts';
import type { NodeKind } from './graph.ts';
import { valueText } from './parsers/binding-text.ts';
import { bindingAt, builtinMethodResult, elementOf, javaCast, nthOf, parseChain, parseType, PY_CONDITIONAL, typeValue, TYPE_NODE_KINDS, unionOf, type ParsedType, type TypeValue } from './receiver-types.ts';
import { JAVA_LANG } from './java-names.ts';
import { innerType, javaQualifiedType, outsideBase, submodule } from './receiver-lookups.ts';
import type { FileScope, SymbolTables } from './resolve-names.ts';
import type { Position, ReceiverContext } from './receiver-context.ts';

export type { ReceiverContext } from './receiver-context.ts';
import { withBindings } from './file-scope.ts';

const SELF_VALUES = new Set(['self', 'this']);
const SELF_CLASSES = new Set(['cls', 'Self']);
const VALUE_KINDS: ReadonlySet<NodeKind> = new Set(['function', 'class', 'interface', 'type']);
const CLASS_LIKE: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
const MAX_DEPTH = 6;
const INFERRED = 0.9;

/** The type of a receiver text written at `caller`/`line` in the context's file, or null when unknown. */
export function receiverType(ctx: ReceiverContext, text: string, caller: string | null, line: number): TypeValue | null {
  const at: Position = { scope: ctx.scope, caller, line, depth: 0 };
  // A Java cast `((Attributes) value).get()`: the receiver is what it is cast to.
  const cast = ctx.scope.language === 'java' ? javaCast(text) : null;
  if (cast) return typeFromText(ctx, cast, at, -1, 1);
  return evalText(ctx, valueText(text), at);
}

/** Java's `getClass()` is `Object`'s final method: whatever the receiver, a `Class` (the JDK's). */
const JAVA_GET_CLASS = 'getClass';

/** The binding a name refers to at a position: innermost scope first; class bodies only in Java. */
export function findBinding(ctx: ReceiverContext, scope: FileScope, name: string, caller: string | null, line: number): ExtractedBinding | undefined {
  for (const q of ctx.chain(caller)) {
    const idx = ctx.tables.symbolIn(scope.path, q);
    if (idx >= 0 && CLASS_LIKE.has(ctx.tables.node(idx).kind) && scope.language !== 'java') {
      // A class body's names are not in its methods' scope, but a Rust impl's type parameters are.
      const b = scope.language === 'rust' ? bindingAt(scope.bindings, q, name, line) : undefined;
      if (b?.source === 'tparam') return b;
      continue;
    }
    const b = bindingAt(scope.bindings, q, name, line);
    if (b) return b;
  }
  return bindingAt(scope.bindings, '', name, line);
}

function evalText(ctx: ReceiverContext, text: string, at: Position): TypeValue | null {
  if (at.depth > MAX_DEPTH) return null;
  const cond = at.scope.language === 'python' ? PY_CONDITIONAL.exec(text) : null;
  if (cond) return conditionalValue(ctx, cond[1], cond[2], at);
  const chain = parseChain(text);
  if (!chain) return null;
  const steps = chain.steps;
  // Java `state().x()`: a bare call is a method of the enclosing class (implicit `this`), inherited
  // ones too — never a field or local of that name (`attributes().put()` beside a field `attributes`).
  const javaBareCall = chain.typeHead === undefined && at.scope.language === 'java' && steps[0]?.op === 'call';
  // `x.getClass()…`: the JDK's from there on, whatever `x` is.
  if (at.scope.language === 'java' && ((javaBareCall && chain.head === JAVA_GET_CLASS) || steps.some((s, i) => s.op === 'member' && s.name === JAVA_GET_CLASS && steps[i + 1]?.op === 'call'))) return { kind: 'external', conf: 1 };
  let v: TypeValue | null = chain.typeHead !== undefined ? typeFromText(ctx, chain.typeHead, at, -1, 1) : javaBareCall ? null : evalHead(ctx, chain.head, at);
  if (v && chain.typeHead !== undefined) return v; // `[]*Route{}` is already the collection
  let first = 0;
  if (javaBareCall) {
    const cls = ctx.enclosingClass(at.scope.path, at.caller, at.scope);
    if (cls >= 0) v = methodResult(ctx, { kind: 'instance', node: cls, conf: 1 }, chain.head, at);
    if (v) first = 1;
    else v = evalHead(ctx, chain.head, at); // a statically imported function: its call step follows
  }
  for (let i = first; i < steps.length && v; i++) {
    const step = steps[i];
    switch (step.op) {
      case 'member':
        if (at.scope.language === 'java' && step.name === 'this' && v.kind === 'class') v = { kind: 'instance', node: v.node, conf: v.conf }; // `Outer.this`
        else if (steps[i + 1]?.op === 'call') {
          v = methodResult(ctx, v, step.name, at);
          i++;
        } else v = memberValue(ctx, v, step.name, at);
        break;
      case 'call':
        v = v.kind === 'class' ? { kind: 'instance', node: v.node, conf: v.conf } : v.kind === 'function' ? returnOf(ctx, v.node, v.conf) : v.kind === 'external' ? v : v.kind === 'instance' ? callOf(ctx, v.node, v.conf) : v.kind === 'callable' ? v.result : null;
        break;
      case 'literal':
        v = v.kind === 'class' ? { kind: 'instance', node: v.node, conf: v.conf } : v;
        break;
      case 'index':
        // Go `New[K, V](…)`: a generic function or type instantiated, then called (the brackets are elided with their contents).
        v = at.scope.language === 'go' && (v.kind === 'function' || v.kind === 'class') && steps[i + 1]?.op === 'call' ? v : elementOf(v);
        break;
      case 'nth':
        v = nthOf(v, step.k);
        break;
      case 'unwrap':
        v = v.kind === 'wrapper' ? v.inner : v;
        break;
      case 'assert':
        v = typeFromText(ctx, step.type, at, -1, 1);
        break;
    }
  }
  return v;
}

/** Calling an instance (`factory(app)`): what its class's `__call__` returns (a Protocol's call signature, a callable object). */
function callOf(ctx: ReceiverContext, cls: number, conf: number): TypeValue | null {
  const m = ctx.memberOf(cls, '__call__');
  return m >= 0 ? returnOf(ctx, m, conf) : null;
}

// `A if cond else B` (brackets and strings already elided, so neither branch hides an `if`).

/** `A if c else B`: the type both branches agree on (a `None` branch counts as an Optional). */
function conditionalValue(ctx: ReceiverContext, a: string, b: string, at: Position): TypeValue | null {
  const next: Position = { ...at, depth: at.depth + 1 };
  const va = a.trim() === 'None' ? null : evalText(ctx, a, next);
  const vb = b.trim() === 'None' ? null : evalText(ctx, b, next);
  if (a.trim() === 'None') return vb;
  if (b.trim() === 'None') return va;
  // Both branches workspace instances: the one class, or either of the two (`A() if c else B()`).
  if ((va?.kind === 'instance' || va?.kind === 'union') && (vb?.kind === 'instance' || vb?.kind === 'union')) return unionOf([va, vb], Math.min(va.conf, vb.conf));
  return null;
}

function evalHead(ctx: ReceiverContext, name: string, at: Position): TypeValue | null {
  const { tables, scope } = { tables: ctx.tables, scope: at.scope };
  if (SELF_VALUES.has(name) || SELF_CLASSES.has(name)) {
    const cls = ctx.enclosingClass(scope.path, at.caller, scope);
    if (cls >= 0) return { kind: SELF_CLASSES.has(name) ? 'class' : 'instance', node: cls, conf: 1 };
    if (SELF_VALUES.has(name)) return null;
    // `cls` outside a class is a plain name (`def make(cls: type[Foo])`).
  }
  const b = findBinding(ctx, scope, name, at.caller, at.line);
  if (b) return bindingValue(ctx, b, at);
  if (scope.language === 'java') {
    // A field the enclosing class inherits (`tokeniser.transition()` in a subclass): implicit `this`.
    const cls = ctx.enclosingClass(scope.path, at.caller, scope);
    const field = cls >= 0 ? fieldValue(ctx, cls, name, at) : null;
    if (field) return field;
  }
  const mod = scope.moduleAliases.get(name);
  if (mod) return { kind: 'module', files: mod, conf: 1 };
  if (scope.externalNames.has(name)) return { kind: 'external', conf: 1 };
  const r = ctx.lookup(name, at.caller, scope, VALUE_KINDS);
  if (r.targets.length === 0 && scope.language === 'java' && JAVA_LANG.has(name)) return { kind: 'external', conf: 1 }; // `Integer.parseInt(…)`
  if (r.targets.length === 0 && at.depth < MAX_DEPTH) return importedGlobal(ctx, name, at);
  if (r.targets.length !== 1) return null;
  return symbolValue(tables, r.targets[0], r.confidence);
}

function symbolValue(tables: SymbolTables, idx: number, conf: number): TypeValue {
  return CLASS_LIKE.has(tables.node(idx).kind) ? { kind: 'class', node: idx, conf } : { kind: 'function', node: idx, conf };
}

/** The value a binding holds: its declared type, else the type of its value (an element of it for `range`). */
function bindingValue(ctx: ReceiverContext, b: ExtractedBinding, at: Position): TypeValue | null {
  const here: Position = { ...at, line: b.line, depth: at.depth + 1 };
  if (b.type && b.type !== 'var' && b.type !== 'auto') {
    const t = typeFromText(ctx, b.type, here, -1, 1);
    if (t) return b.source === 'range' && t.kind === 'collection' ? t.element : t;
  }
  if (!b.value) return null;
  if (at.scope.language === 'python' && b.value.startsWith('yield ')) return sentValue(ctx, b, here);
  // `x = Foo(x) if isinstance(x, str) else x` normalises x: the branch that is not x itself.
  const cond = at.scope.language === 'python' ? PY_CONDITIONAL.exec(b.value) : null;
  const other = cond ? (cond[2].trim() === b.name ? cond[1] : cond[1].trim() === b.name ? cond[2] : null) : null;
  const v = evalText(ctx, other ?? b.value, here);
  // `with cm() as x` where `cm` is a `@contextmanager` generator (`-> Iterator[T]`): x is a T.
  return b.source === 'range' || (b.source === 'with' && v?.kind === 'collection') ? elementOf(v) : v;
}

/** A type written in a file (at a position), `Self` meaning `selfClass`. */
function typeFromText(ctx: ReceiverContext, text: string, at: Position, selfClass: number, conf: number): TypeValue | null {
  return typeFromParsed(ctx, parseType(text, at.scope.language), at, selfClass, conf);
}

/**
 * A Python type alias (`Endpoint = Callable[[Request], Awaitable[Response]]`) declared in the file or
 * in the module a name is imported from: the type it stands for, read in the declaring file.
 */
function aliasValue(ctx: ReceiverContext, name: string, at: Position, conf: number): TypeValue | null {
  const tables = ctx.tables;
  const scope = at.scope;
  const original = scope.importedOriginals.get(name) ?? name;
  for (const file of [scope.path, ...(scope.importedNames.get(name) ?? [])]) {
    const text = tables.aliasOf(file, file === scope.path ? name : original);
    if (text === undefined) continue;
    const there = file === scope.path ? scope : tables.scopeOfFile(file);
    if (!there) return null;
    return typeFromText(ctx, text, moduleLevelOf(there, at), -1, conf);
  }
  return null;
}

/** The module level of another file, one step deeper than `at`: where its aliases and variables are read (none of its local bindings). */
function moduleLevelOf(there: FileScope, at: Position): Position {
  return { scope: { ...there, bindings: new Map() }, caller: null, line: Number.MAX_SAFE_INTEGER, depth: at.depth + 1 };
}

/**
 * A module-level variable another module's import names (`from app import db` → `db = SQLAlchemy()`
 * in app): the value it holds, read in the declaring file.
 */
function importedGlobal(ctx: ReceiverContext, name: string, at: Position): TypeValue | null {
  const original = at.scope.importedOriginals.get(name) ?? name;
  for (const file of at.scope.importedNames.get(name) ?? []) {
    const g = ctx.tables.globalOf(file, original);
    const there = g && ctx.tables.scopeOfFile(file);
    if (!g || !there) continue;
    ctx.deps.push(original);
    const here = moduleLevelOf(there, at);
    return g.type ? typeFromText(ctx, g.type, here, -1, 1) : evalText(ctx, g.value!, here);
  }
  return null;
}

/** Heads of a Rust path inside the crate. */
const RUST_PATH_HEADS: ReadonlySet<string> = new Set(['crate', 'super', 'self']);

/** A parsed type written in a file (at a position). */
function typeFromParsed(ctx: ReceiverContext, parsed: ParsedType | null, at: Position, selfClass: number, conf: number): TypeValue | null {
  const scope = at.scope;
  const lookup = (name: string): TypeValue | null => {
    if (name === 'Self' || name === 'this' || name === 'self') {
      const cls = selfClass >= 0 ? selfClass : ctx.enclosingClass(scope.path, at.caller, scope);
      return cls >= 0 ? { kind: 'class', node: cls, conf } : null;
    }
    let parts = name.split('.');
    const last = parts[parts.length - 1];
    // A Rust path within the crate (`super::Buf`, `crate::buf::Buf`) no import names: the type by its name.
    if (scope.language === 'rust' && parts.length > 1 && RUST_PATH_HEADS.has(parts[0]) && !scope.moduleAliases.has(parts.slice(0, -1).join('.')) && !scope.moduleAliases.has(parts[0])) parts = [last];
    if (parts.length > 1) {
      if (scope.language === 'java') {
        // A fully qualified name (`org.jsoup.nodes.Element`, written beside an imported `org.w3c.dom.Element`).
        const fq = javaQualifiedType(ctx, parts, conf);
        if (fq) return fq;
      }
      const files = scope.moduleAliases.get(parts.slice(0, -1).join('.')) ?? scope.moduleAliases.get(parts[0]);
      if (!files && scope.language === 'java' && !scope.externalNames.has(parts[0])) return nestedType(ctx, parts, at, conf);
      if (!files) return scope.externalNames.has(parts[0]) ? { kind: 'external', conf } : null;
      ctx.deps.push(last);
      // `pkg.Name` where the package re-exports `Name` (`from ._models import Name` in `__init__.py`).
      const hits = ctx.exported(files, last, TYPE_NODE_KINDS);
      return hits.length === 1 ? { kind: 'class', node: hits[0], conf } : null;
    }
    if (scope.externalNames.has(last)) return { kind: 'external', conf };
    ctx.deps.push(last);
    // A type parameter with a bound (`<T extends Node>`): what the code may call on a T is the bound's.
    const tparam = findBinding(ctx, scope, last, at.caller, at.line);
    if (tparam?.source === 'tparam') {
      const bound = tparam.type && at.depth < MAX_DEPTH ? typeFromText(ctx, tparam.type, { ...at, depth: at.depth + 1 }, selfClass, conf) : null;
      // The lookup answers for a type name: the bound's class (its instances are what a T holds).
      return bound?.kind === 'instance' ? { kind: 'class', node: bound.node, conf: bound.conf } : bound?.kind === 'external' ? bound : null;
    }
    const r = ctx.lookup(last, at.caller, scope, TYPE_NODE_KINDS);
    if (r.targets.length === 0 && scope.language === 'java' && parts.length === 1 && JAVA_LANG.has(last)) return { kind: 'external', conf }; // `Class<?> c`
    if (r.targets.length === 0 && scope.language === 'python' && at.depth < MAX_DEPTH) return aliasValue(ctx, last, at, conf);
    return r.targets.length === 1 ? { kind: 'class', node: r.targets[0], conf: Math.min(conf, r.confidence) } : null;
  };
  return typeValue(parsed, lookup, conf);
}

const GENERATORS = new Set(['Generator', 'AsyncGenerator']);

/** `x = yield y` in a function declared `-> Generator[Y, S, R]`: x is what is sent, an S. */
function sentValue(ctx: ReceiverContext, b: ExtractedBinding, at: Position): TypeValue | null {
  if (b.scope === null) return null;
  const fn = ctx.tables.symbolIn(at.scope.path, b.scope);
  const text = fn >= 0 ? ctx.tables.returnTypeOf(fn) : undefined;
  const t = text ? parseType(text, at.scope.language) : null;
  if (!t || !GENERATORS.has(t.name.slice(t.name.lastIndexOf('.') + 1)) || t.args.length < 2) return null;
  return typeFromParsed(ctx, t.args[1], at, -1, 1);
}

/** Java `Token.StartTag`: the outer type by name, then its nested types (declared in the outer one's file). */
function nestedType(ctx: ReceiverContext, parts: readonly string[], at: Position, conf: number): TypeValue | null {
  ctx.deps.push(parts[0]);
  const r = ctx.lookup(parts[0], at.caller, at.scope, TYPE_NODE_KINDS);
  if (r.targets.length !== 1) return null;
  const node = innerType(ctx, r.targets[0], parts.slice(1));
  return node < 0 ? null : { kind: 'class', node, conf: Math.min(conf, r.confidence) };
}

/** The declared result of a function or method node, read in the file that declares it. */
function returnOf(ctx: ReceiverContext, fn: number, conf: number): TypeValue | null {
  const tables = ctx.tables;
  const node = tables.node(fn);
  ctx.deps.push(node.label);
  const text = tables.returnTypeOf(fn);
  if (!text) return inferredReturn(ctx, fn, conf);
  const scope = tables.scopeOfFile(node.path);
  if (!scope) return null;
  const q = node.qualifiedName ?? node.label;
  const owner = ctx.enclosingClass(node.path, q.includes('.') ? q : null, scope);
  return typeFromText(ctx, text, { scope, caller: q, line: node.startLine, depth: MAX_DEPTH - 1 }, owner, conf * INFERRED);
}

/** Functions whose result is being inferred (resolution is synchronous): a recursive or deep chain stops. */
const inferring: number[] = [];
const MAX_INFERRING = 3;

/**
 * What an unannotated Python function gives (`def connect(app, cls): p = cls(app); return p`): the
 * values of its `return` statements, read in the function with its locals, as pyright infers them;
 * several that agree, or a union of their classes. Null when a value is unknown or the chain is deep.
 */
function inferredReturn(ctx: ReceiverContext, fn: number, conf: number): TypeValue | null {
  const tables = ctx.tables;
  const bindings = tables.inferredReturnOf(fn);
  if (!bindings?.length || inferring.length >= MAX_INFERRING || inferring.includes(fn)) return null;
  const node = tables.node(fn);
  const file = tables.scopeOfFile(node.path);
  if (!file) return null;
  const scope = withBindings(file, bindings);
  const q = node.qualifiedName ?? node.label;
  inferring.push(fn);
  try {
    const values: (TypeValue | null)[] = [];
    for (const b of bindings) {
      if (b.name !== RETURN_BINDING) continue;
      const at = { scope, caller: q, line: b.line, depth: 2 };
      // `return cast(Foo, x)`: the type the cast asserts.
      if (b.type !== undefined) values.push(typeFromText({ ...ctx, scope }, b.type, at, -1, conf));
      else if (b.value !== undefined) values.push(evalText({ ...ctx, scope }, b.value, at));
    }
    if (values.length === 0 || values.some((v) => v === null)) return null;
    const v = values.length === 1 ? values[0] : unionOf(values, conf);
    return v === null ? null : { ...v, conf: Math.min(v.conf, conf) * INFERRED };
  } finally {
    inferring.pop();
  }
}

/** `v.name` without a call: a field of an instance, a symbol of a module, a nested class. */
function memberValue(ctx: ReceiverContext, v: TypeValue, name: string, at: Position): TypeValue | null {
  const tables = ctx.tables;
  switch (v.kind) {
    case 'union':
      return unionOf(v.members.map((m) => memberValue(ctx, m, name, at)), v.conf);
    case 'module': {
      ctx.deps.push(name);
      const hits = ctx.exported(v.files, name, VALUE_KINDS);
      if (hits.length === 1) return symbolValue(tables, hits[0], v.conf);
      // `pkg.sub` where `pkg` is a package: its submodule file.
      const sub = submodule(tables, v.files, name);
      return sub ? { kind: 'module', files: [sub], conf: v.conf } : null;
    }
    case 'instance':
    case 'class': {
      const field = fieldValue(ctx, v.node, name, at);
      if (field) return field;
      const m = ctx.memberOf(v.node, name);
      if (m < 0) return outsideBase(ctx, v.node) ? { kind: 'external', conf: v.conf } : null;
      if (CLASS_LIKE.has(tables.node(m).kind)) return { kind: 'class', node: m, conf: v.conf };
      // A Python method read without a call is a property: its value is what it returns.
      return v.kind === 'instance' && tables.node(m).language === 'python' ? returnOf(ctx, m, v.conf) : null;
    }
    case 'external':
      return v;
    default:
      return null;
  }
}

/** `v.name()`: what the method call gives. */
function methodResult(ctx: ReceiverContext, v: TypeValue, name: string, at: Position): TypeValue | null {
  const builtin = builtinMethodResult(v, name);
  if (builtin !== undefined) return builtin;
  switch (v.kind) {
    case 'union':
      return unionOf(v.members.map((m) => methodResult(ctx, m, name, at)), v.conf);
    case 'instance':
    case 'class': {
      const m = ctx.memberOf(v.node, name);
      if (m < 0) return outsideBase(ctx, v.node) ? { kind: 'external', conf: v.conf } : null;
      return CLASS_LIKE.has(ctx.tables.node(m).kind) ? { kind: 'instance', node: m, conf: v.conf } : returnOf(ctx, m, v.conf);
    }
    case 'module': {
      const s = memberValue(ctx, v, name, at);
      if (!s) return null;
      return s.kind === 'class' ? { kind: 'instance', node: s.node, conf: s.conf } : s.kind === 'function' ? returnOf(ctx, s.node, s.conf) : null;
    }
    case 'external':
      return v;
    default:
      return null;
  }
}

/** The type of field `name` of a class or of its ancestors, read where the class declares it. */
function fieldValue(ctx: ReceiverContext, classIdx: number, name: string, at: Position, seen: number[] = []): TypeValue | null {
  const tables = ctx.tables;
  if (seen.includes(classIdx) || seen.length > 4) return null;
  seen.push(classIdx);
  const cls = tables.node(classIdx);
  ctx.deps.push(cls.label);
  const field = tables.fieldOf(classIdx, name);
  if (field) {
    const scope = tables.scopeOfFile(cls.path);
    if (!scope) return null;
    const here: Position = { scope, caller: cls.qualifiedName ?? cls.label, line: Number.MAX_SAFE_INTEGER, depth: at.depth + 1 };
    if (field.type) return typeFromText(ctx, field.type, here, classIdx, 1);
    return field.value ? evalText(ctx, field.value, { ...here, scope: { ...scope, bindings: new Map() } }) : null;
  }
  for (const p of tables.parentsOf(classIdx)) {
    const v = fieldValue(ctx, p, name, at, seen);
    if (v) return v;
  }
  return null;
}
