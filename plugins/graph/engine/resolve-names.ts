/**
 * Name resolution: a callee, type or base-class name → graph nodes, by the precedence documented in
 * docs/graph-model.md ("Resolving names"): same file (lexical scope), names imported into the file,
 * the receiver's class for self/this, then a unique workspace-wide name. Every answer says which
 * names it depended on, so an incremental build knows whom a changed definition concerns.
 */
import { posix } from 'node:path';
import { exportedFrom, resolveBareName } from './bare-names.ts';
import { isBuiltinMethod } from './builtin-names.ts';
import type { ExtractedBinding, ExtractedCall } from './extraction.ts';
import type { FileScope } from './file-scope.ts';
import { javaArgumentType } from './java-arguments.ts';
import { inheritedMember } from './java-names.ts';
import { classOrAncestor, enclosingClass, member, memberOf } from './member-lookup.ts';
import { CALLABLE_KINDS, CLASS_LIKE, MAX_AMBIGUOUS, NONE, TYPE_KINDS, found, lexicalChain, type Dependencies, type NameResolution, type SymbolTables } from './resolution-tables.ts';
import { pickConstructor, pickOverloads, type ArgTypeOf } from './resolve-overloads.ts';
import { findBinding, receiverType, type ReceiverContext } from './resolve-receivers.ts';
import { outsideBase } from './receiver-lookups.ts';

export { buildFileScope, withBindings, type FileScope } from './file-scope.ts';
// The rules live in resolution-tables.ts, bare-names.ts, member-lookup.ts, java-names.ts and global-names.ts; their shared names stay importable from here.
export { reexportKey } from './bare-names.ts';
export type { Dependencies, NameResolution, SymbolTables } from './resolution-tables.ts';

const SELF_RECEIVERS = new Set(['self', 'this', 'cls', 'Self', 'me']);

/**
 * Contexts by dependency list: a file's link resolves all its calls with one scope, one set of
 * tables and one dependency list, so its receivers share one context instead of six new closures
 * per call. Weak, so a finished link (or a replaced builder) is not kept alive by the cache.
 */
const contexts = new WeakMap<Dependencies, ReceiverContext>();

/** The evaluator's view of this module's rules. */
function receiverContext(scope: FileScope, tables: SymbolTables, deps: Dependencies): ReceiverContext {
  const known = contexts.get(deps);
  if (known !== undefined && known.scope === scope && known.tables === tables) return known;
  const ctx = newReceiverContext(scope, tables, deps);
  contexts.set(deps, ctx);
  return ctx;
}

function newReceiverContext(scope: FileScope, tables: SymbolTables, deps: Dependencies): ReceiverContext {
  return {
    scope,
    tables,
    deps,
    lookup: (name, from, s, kinds) => resolveBareName(name, from, s, tables, kinds, deps),
    chain: lexicalChain,
    exported: (files, name, kinds) => exportedFrom(files, name, tables, kinds, deps),
    memberOf: (cls, name) => {
      const walked: number[] = [];
      const m = memberOf(cls, name, tables, walked);
      deps.push(name);
      for (const c of walked) deps.push(tables.node(c).label);
      return m;
    },
    enclosingClass: (path, caller, s) => ownerClass(path, caller, s, tables, deps),
  };
}

/** The class a caller sits in; for a method of a type declared elsewhere (Go receivers, Rust impls), that type. */
function ownerClass(path: string, caller: string | null, scope: FileScope, tables: SymbolTables, deps: Dependencies): number {
  const cls = enclosingClass(path, caller, tables);
  if (cls >= 0 || !caller?.includes('.')) return cls;
  const owner = caller.slice(0, caller.indexOf('.'));
  if (tables.symbolIn(path, owner) >= 0) return -1; // a nested function of a function, not a method
  const r = resolveBareName(owner, null, scope, tables, CLASS_LIKE, deps);
  return r.targets.length === 1 ? r.targets[0] : -1;
}

const ASSIGNED_METHOD_LANGUAGES = new Set(['javascript', 'typescript', 'tsx']);

/**
 * `this.m()` in a method assigned on a plain object (`app.use = function () { this.set(…) }`, the
 * object `var app = {}` or `Object.create(…)`, no class): the object's method `m` assigned in the same
 * file, or -1. JavaScript binds `this` to the object such a method is called on.
 */
export function assignedSibling(call: ExtractedCall, scope: FileScope, tables: SymbolTables): number {
  const caller = call.caller;
  if (call.receiver !== 'this' || !caller || !ASSIGNED_METHOD_LANGUAGES.has(scope.language)) return -1;
  const dot = caller.indexOf('.');
  if (dot <= 0 || caller.indexOf('.', dot + 1) >= 0) return -1;
  const owner = caller.slice(0, dot);
  const self = tables.symbolIn(scope.path, caller);
  if (self < 0 || tables.node(self).kind !== 'method' || tables.symbolIn(scope.path, owner) >= 0) return -1;
  const m = tables.symbolIn(scope.path, `${owner}.${call.callee}`);
  return m >= 0 && tables.node(m).kind === 'method' ? m : -1;
}

/** A Go call that names a type is a conversion (`HandlerFunc(f)`), not a call. */
function conversion(r: NameResolution, scope: FileScope, tables: SymbolTables): boolean {
  return scope.language === 'go' && r.targets.length > 0 && r.targets.every((t) => tables.node(t).kind === 'type' || tables.node(t).kind === 'interface');
}

/** The first identifier of a receiver (`sys` in `sys.stdout`). */
function receiverHead(recv: string): string {
  return /^[\p{ID_Start}_$][\p{ID_Continue}$]*/u.exec(recv)?.[0] ?? '';
}

/** Resolves a call to function/method/class nodes, adding to `deps` the names the answer depended on. */
export function resolveCall(call: ExtractedCall, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  if (scope.language !== 'java' || call.args === undefined) return resolveByName(call, scope, tables, deps);
  const argType: ArgTypeOf = (text) => javaArgumentType(receiverContext(scope, tables, deps), text, call.caller, call.line);
  if (!call.receiver && (call.callee === 'this' || call.callee === 'super')) {
    // `this(…)`/`super(…)` in a constructor: a constructor of the class or of its superclass.
    let cls = ownerClass(scope.path, call.caller, scope, tables, deps);
    if (cls >= 0 && call.callee === 'super') {
      deps.push(tables.node(cls).label);
      cls = tables.parentsOf(cls).find((p) => tables.node(p).kind === 'class') ?? -1;
    }
    if (cls < 0) return NONE;
    deps.push(tables.node(cls).label);
    return pickConstructor(cls, call, scope.path, argType, tables, deps);
  }
  return pickOverloads(resolveByName(call, scope, tables, deps), call, scope.path, argType, tables, deps, (cls) => outsideBase(receiverContext(scope, tables, deps), cls));
}

/** Resolves a call by its name, receiver and scope (overloads not yet told apart). */
function resolveByName(call: ExtractedCall, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  const callee = call.callee;
  const recv = call.receiver?.trim();
  if (!recv) {
    if (scope.language === 'java') {
      // In an anonymous class body: a method of the body itself (nested under the enclosing method, beside
      // the caller), else a member of the type it extends.
      const sibling = call.within && call.caller ? tables.symbolIn(scope.path, `${call.caller.slice(0, call.caller.lastIndexOf('.') + 1)}${callee}`) : -1;
      const base = call.within && sibling < 0 ? receiverType(receiverContext(scope, tables, deps), call.within, call.caller, call.line) : null;
      if (base?.kind === 'class') {
        const own = member(base.node, callee, tables, 1, deps);
        if (own.targets.length) return own;
      }
      const m = inheritedMember(callee, call.caller, scope, tables, deps);
      if (m.targets.length) return m;
    }
    const r = resolveBareName(callee, call.caller, scope, tables, CALLABLE_KINDS, deps, call.line);
    if (r.shadowedBy) return shadowedCall(r.shadowedBy, call, scope, tables, deps);
    return conversion(r, scope, tables) ? NONE : r;
  }
  // 3. self/this/cls: a member of the enclosing class or of its ancestors.
  if (SELF_RECEIVERS.has(recv)) {
    const sibling = assignedSibling(call, scope, tables);
    if (sibling >= 0) return { targets: [sibling], confidence: 1 };
    const cls = ownerClass(scope.path, call.caller, scope, tables, deps);
    if (cls < 0 && scope.language === 'rust') return foreignSelfCall(callee, call.caller, tables, deps);
    const m = cls >= 0 ? member(cls, callee, tables, 1, deps) : NONE;
    if (m.targets.length) return m;
    // `self.app(…)` with a field `app` (`self.app = endpoint`): the callable the field holds, never a same-named method
    // elsewhere (Java's `this.x()` is always a method).
    if (cls >= 0 && scope.language !== 'java' && hasField(cls, callee, tables, deps)) {
      const held = receiverType(receiverContext(scope, tables, deps), `${recv}.${callee}`, call.caller, call.line);
      return held && (held.kind === 'function' || held.kind === 'class') ? { targets: [held.node], confidence: Math.min(1, held.conf) } : NONE;
    }
    return unknownReceiver(callee, scope, tables, deps);
  }
  // (Rust's `super::f()` names the parent module: a module path, below.)
  if (scope.language !== 'rust' && (recv === 'super' || recv.startsWith('super(') || recv === 'base')) {
    const cls = ownerClass(scope.path, call.caller, scope, tables, deps);
    const walked: number[] = [];
    let hit = -1;
    for (const p of cls >= 0 ? tables.parentsOf(cls) : []) if ((hit = memberOf(p, callee, tables, walked)) >= 0) break;
    deps.push(callee);
    for (const c of walked) deps.push(tables.node(c).label);
    return hit >= 0 ? { targets: [hit], confidence: 1 } : NONE;
  }
  const ctx = receiverContext(scope, tables, deps);
  const head = receiverHead(recv);
  const binding = head !== '' ? findBinding(ctx, scope, head, call.caller, call.line) : undefined;
  // `var utils = require('./utils')` binds the module: its import carries the alias.
  const local = binding !== undefined && binding.value !== 'require()';
  // 2. A module imported into the file used as a qualifier (`os.path.join`, `pkg.Func`, `mod::f`).
  const moduleFiles = local ? undefined : scope.moduleAliases.get(recv);
  if (moduleFiles) {
    deps.push(callee); // hit or miss, the answer is whatever the module defines under that name
    const hits = exportedFrom(moduleFiles, callee, tables, CALLABLE_KINDS, deps);
    const r = hits.length ? found(hits, hits.length === 1 ? 1 : 0.5) : NONE;
    return conversion(r, scope, tables) ? NONE : r;
  }
  // A receiver whose static type is known: its member, or nothing when the type is not ours.
  const type = receiverType(ctx, recv, call.caller, call.line);
  if (type) {
    switch (type.kind) {
      case 'instance':
      case 'class': {
        const m = member(type.node, callee, tables, Math.min(1, type.conf), deps);
        if (m.targets.length || tables.node(type.node).kind !== 'interface') return m;
        // A Go interface (its methods are no nodes): the call runs whichever type's method the value
        // holds — the workspace's only method of that name, or none of them (never the same file's guess).
        // Another language's interface that does not list it (an ancestor outside the workspace): by name, as unknown.
        return unknownReceiver(callee, scope, tables, deps, scope.language === 'go');
      }
      case 'module': {
        deps.push(callee);
        const hits = exportedFrom(type.files, callee, tables, CALLABLE_KINDS, deps);
        return hits.length ? found(hits, hits.length === 1 ? type.conf : 0.5) : NONE;
      }
      case 'union': {
        // One of several classes: the call may run the member of each that has it.
        const targets: number[] = [];
        for (const m of type.members) for (const t of member(m.node, callee, tables, 1, deps).targets) if (!targets.includes(t)) targets.push(t);
        return targets.length ? { targets, confidence: Math.min(1, type.conf) * (targets.length === 1 ? 1 : 0.9) } : NONE;
      }
      default:
        return NONE; // builtin, external, a collection or a function object
    }
  }
  // An import says the receiver is outside the workspace (`sys.stdout`, Go `http`).
  if (!local && scope.externalNames.has(head)) return NONE;
  return unknownReceiver(callee, scope, tables, deps);
}

/**
 * An attribute read or write (`recv.name` without a call): the property getter `name` of the
 * receiver's class when the receiver is `self`/`cls`, `super()` or of a known type; never by name
 * alone. Nothing unless some property has that name anywhere (cheap, and the name is a dependency).
 */
export function resolveAccess(call: ExtractedCall, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  const name = call.callee;
  deps.push(name);
  if (!tables.named(name).some((i) => tables.node(i).kind === 'method' && tables.isProperty(i))) return NONE;
  const recv = call.receiver?.trim() ?? '';
  let r = NONE;
  // Read on a class (`cls.name`, `Foo.name`) a property is the descriptor itself: no call.
  if (recv === 'self') {
    const cls = ownerClass(scope.path, call.caller, scope, tables, deps);
    if (cls >= 0) r = member(cls, name, tables, 1, deps);
  } else if (recv === 'super' || recv.startsWith('super(')) {
    r = resolveCall(call, scope, tables, deps);
  } else if (recv !== '') {
    const ctx = receiverContext(scope, tables, deps);
    const type = receiverType(ctx, recv, call.caller, call.line);
    if (type?.kind === 'instance') r = member(type.node, name, tables, Math.min(1, type.conf), deps);
  }
  return r.targets.length === 1 && tables.isProperty(r.targets[0]) ? r : NONE;
}

/** Whether a class or a workspace ancestor declares or assigns a field `name`. */
function hasField(cls: number, name: string, tables: SymbolTables, deps: Dependencies): boolean {
  return classOrAncestor(cls, tables, (c) => {
    deps.push(tables.node(c).label);
    return tables.fieldOf(c, name) !== undefined;
  });
}

/** A bare call of a local binding: the function it aliases (`f = helper; f()`), else nothing. */
function shadowedCall(b: ExtractedBinding, call: ExtractedCall, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  if (!b.value || b.source === 'param' || /[()[\]{}]/.test(b.value)) return NONE;
  const t = receiverType(receiverContext(scope, tables, deps), b.value, b.scope, b.line);
  return t && (t.kind === 'function' || t.kind === 'class') ? { targets: [t.node], confidence: Math.min(1, t.conf) * 0.9 } : NONE;
}

/**
 * Rust `self.m()` in an impl on a type the workspace does not declare (`impl BufMut for Vec<u8>`,
 * `impl Buf for &[u8]`): a method the workspace gives that same type elsewhere (`Vec.m` in another
 * impl), else a trait's method (its default body) when only one trait has it; never a workspace
 * struct's method, which `self` cannot be (`self.capacity()` there is `Vec::capacity`).
 */
function foreignSelfCall(callee: string, caller: string | null, tables: SymbolTables, deps: Dependencies): NameResolution {
  deps.push(callee);
  const dot = caller ? caller.lastIndexOf('.') : -1;
  const owner = dot > 0 ? caller!.slice(0, dot) : null;
  const methods = tables.named(callee).filter((i) => tables.node(i).kind === 'method');
  if (owner !== null) {
    const own = methods.filter((i) => tables.node(i).qualifiedName === `${owner}.${callee}`);
    if (own.length) return found(own, own.length === 1 ? 1 : 0.5);
  }
  const ofTraits = methods.filter((i) => {
    const n = tables.node(i);
    const q = n.qualifiedName ?? '';
    const holder = q.includes('.') ? tables.symbolIn(n.path, q.slice(0, q.lastIndexOf('.'))) : -1;
    return holder >= 0 && tables.node(holder).kind === 'interface';
  });
  return ofTraits.length === 1 ? { targets: ofTraits, confidence: 0.5 } : NONE;
}

/**
 * `obj.method()` with an unknown receiver type: link only a method name that is unique (in the
 * file 0.5, in the workspace 0.4), and never one that builtin or standard types also have.
 * `dispatch`: the receiver is an interface value, so the file's own method is no likelier than another's.
 */
function unknownReceiver(callee: string, scope: FileScope, tables: SymbolTables, deps: Dependencies, dispatch = false): NameResolution {
  if (isBuiltinMethod(scope.language, callee) || (callee.startsWith('__') && callee.endsWith('__'))) return NONE;
  deps.push(callee);
  let methods = 0;
  let lastMethod = -1;
  let locals = 0;
  let lastLocal = -1;
  for (const i of tables.named(callee)) {
    const n = tables.node(i);
    // Overloads (`Foo.load#2`) are one method here; the overload choice picks among them later.
    if (n.kind !== 'method' || (n.qualifiedName?.includes('#') && /#\d+$/.test(n.qualifiedName))) continue;
    methods++;
    lastMethod = i;
    if (n.path === scope.path) {
      locals++;
      lastLocal = i;
    }
  }
  if (locals === 1 && !dispatch) return { targets: [lastLocal], confidence: 0.5 };
  if (methods === 1) return { targets: [lastMethod], confidence: 0.4 };
  return NONE;
}

/** Resolves a type name (reference, base class, implemented interface) to class/interface/type nodes. */
export function resolveTypeName(name: string, from: string | null, scope: FileScope, tables: SymbolTables, deps: Dependencies, qualifier?: string): NameResolution {
  const last = name.split(/[.:]+/).filter(Boolean).pop() ?? name;
  // `mod.Name` with `mod` an imported module: what the module exports under that name.
  const moduleFiles = qualifier !== undefined ? scope.moduleAliases.get(qualifier) : undefined;
  if (moduleFiles) {
    deps.push(last);
    const hits = exportedFrom(moduleFiles, last, tables, TYPE_KINDS, deps);
    if (hits.length) return found(hits, hits.length === 1 ? 1 : 0.5);
  }
  return resolveBareName(last, from, scope, tables, TYPE_KINDS, deps);
}

/** Whether `names` (a package path as written: `httpx`, `pkg.sub`) are consecutive folders, or folders and file stem, of `path`. */
export function underNames(path: string, names: readonly string[]): boolean {
  const segments = path.replace(/\.[^./]+$/, '').split('/');
  for (let s = 0; s + names.length <= segments.length; s++) if (names.every((p, j) => segments[s + j] === p)) return true;
  return false;
}

/**
 * Resolves a symbol named in prose (`CodeGraph.finalize`, `seek()`, `crate::a::b`, `httpx.Client`) to
 * nodes: a qualifier narrows candidates by qualified name, file stem or the folders it spells (a
 * package's public name for a class defined in `httpx/_client.py`); unique → 1, up to 3 → 0.5 each.
 */
export function resolveMention(text: string, tables: SymbolTables, deps: Dependencies): NameResolution {
  const clean = text.replace(/\(.*\)$/, '').replace(/[`'"]/g, '').trim();
  const parts = clean.split(/\.|::|#/).filter(Boolean);
  const name = parts.pop();
  if (!name || !/^[A-Za-z_$][\w$]*$/.test(name)) return NONE;
  deps.push(name);
  let cands = tables.named(name).filter((i) => tables.node(i).kind !== 'section');
  if (parts.length) {
    const qual = parts.join('.');
    cands = cands.filter((i) => {
      const n = tables.node(i);
      const q = n.qualifiedName ?? '';
      const stem = posix.basename(n.path).replace(/\.[^.]+$/, '');
      return q.endsWith(`${qual}.${name}`) || q === `${qual}.${name}` || stem === parts[parts.length - 1] || underNames(n.path, parts);
    });
  }
  if (cands.length === 0) return NONE;
  if (cands.length === 1) return { targets: cands, confidence: 1 };
  cands.sort((a, b) => (tables.node(a).id < tables.node(b).id ? -1 : 1));
  return cands.length <= MAX_AMBIGUOUS ? { targets: cands, confidence: 0.5 } : NONE;
}
