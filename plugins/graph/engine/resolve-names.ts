/**
 * Name resolution: a callee, type or base-class name → graph nodes, by the precedence documented in
 * docs/graph-model.md ("Resolving names"): same file (lexical scope), names imported into the file,
 * the receiver's class for self/this, then a unique workspace-wide name. Every answer says which
 * names it depended on, so an incremental build knows whom a changed definition concerns.
 */
import { posix } from 'node:path';
import { isBuiltinFunction, isBuiltinMethod } from './builtin-names.ts';
import type { ExtractedBinding, ExtractedCall, Language } from './extraction.ts';
import type { GraphNode, NodeKind } from './graph.ts';
import type { FileScope } from './file-scope.ts';
import { pickConstructor, pickOverloads, type ArgTypeOf } from './resolve-overloads.ts';
import { findBinding, receiverType, type ReceiverContext } from './resolve-receivers.ts';
import { dirOf, type ResolvedImport } from './resolve.ts';

export { buildFileScope, withBindings, type FileScope } from './file-scope.ts';

/** Symbol tables the name resolver reads (implemented by the graph builder). */
export interface SymbolTables {
  /** Node index of the symbol with this qualified name in a file, or -1. */
  symbolIn(path: string, qualifiedName: string): number;
  /** Same as symbolIn(path, `${prefix}.${name}`) (or `name` when prefix is ''), without building the string. */
  memberIn(path: string, prefix: string, name: string): number;
  /** Node indices of all symbols with this short name in the workspace. */
  named(name: string): readonly number[];
  /** Node data. */
  node(index: number): GraphNode;
  /** Resolved parent classes/interfaces of a class-like node (for inherited members). */
  parentsOf(index: number): readonly number[];
  /** Declared result type of a function or method node, as written. */
  returnTypeOf(index: number): string | undefined;
  /** Declared parameter types of a method or constructor node (Java), for choosing among overloads. */
  paramsOf(index: number): readonly string[] | undefined;
  /** True for a property getter (Python `@property`): reading the attribute calls it. */
  isProperty(index: number): boolean;
  /** A field the class-like node itself declares (`self.x = ...`, struct field), not inherited ones. */
  fieldOf(classIndex: number, name: string): { type?: string; value?: string } | undefined;
  /** The lookups of a file (to read a type written there), without its local bindings. */
  scopeOfFile(path: string): FileScope | undefined;
  /** Resolved imports of a file (to follow re-exports). */
  importsOf(path: string): readonly ResolvedImport[];
  /** Files directly in a directory (a Go package's other files declare methods too). */
  filesInDir(dir: string): readonly string[];
}

/** Resolution outcome: target nodes and a confidence multiplier for the edge weight. */
export interface NameResolution {
  targets: number[];
  confidence: number;
}

/**
 * Receives the names whose definitions decided an answer (found in another file, in the
 * workspace-wide table, or through a class walked for a member): when a symbol with one of these
 * names appears or disappears anywhere, the file must be re-resolved. An array the caller owns, so
 * resolving allocates nothing per lookup for it.
 */
export type Dependencies = string[];

const NONE: NameResolution = { targets: [], confidence: 0 };
const SELF_RECEIVERS = new Set(['self', 'this', 'cls', 'Self', 'me']);
const CALLABLE_KINDS: ReadonlySet<NodeKind> = new Set(['function', 'class', 'method', 'type']);
const TYPE_KINDS: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
const CLASS_LIKE: ReadonlySet<NodeKind> = new Set(['class', 'interface', 'type']);
/** More candidates than this for a bare global name means "too ambiguous to link". */
const MAX_AMBIGUOUS = 3;

const chains = new Map<string, string[]>();

/** `A.b.c` → [`A.b.c`, `A.b`, `A`] (memoised: the same callers recur for every call they make). */
function lexicalChain(caller: string | null): string[] {
  if (!caller) return [];
  let out = chains.get(caller);
  if (out) return out;
  out = [];
  for (let q = caller; q; q = q.slice(0, Math.max(0, q.lastIndexOf('.')))) out.push(q);
  if (chains.size > 50_000) chains.clear();
  chains.set(caller, out);
  return out;
}

function inKinds(tables: SymbolTables, idx: number, kinds: ReadonlySet<NodeKind>): boolean {
  return kinds.has(tables.node(idx).kind);
}

/** Symbols named `name` declared at the top of any of the files. */
function topLevelIn(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>): number[] {
  const out: number[] = [];
  for (const f of files) {
    const i = tables.memberIn(f, '', name);
    if (i >= 0 && inKinds(tables, i, kinds)) out.push(i);
  }
  return out;
}

/** The class-like symbol enclosing a caller, by walking its qualified name up. */
function enclosingClass(path: string, caller: string | null, tables: SymbolTables): number {
  for (const q of lexicalChain(caller)) {
    const i = tables.symbolIn(path, q);
    if (i >= 0 && CLASS_LIKE.has(tables.node(i).kind)) return i;
  }
  return -1;
}

/** A member `name` of a class node or of its ancestors (bounded depth), or -1; `walked` collects the classes visited. */
function memberOf(classIdx: number, name: string, tables: SymbolTables, walked: number[] = [], depth = 0): number {
  if (walked.includes(classIdx) || depth > 4) return -1;
  walked.push(classIdx);
  const cls = tables.node(classIdx);
  const prefix = cls.qualifiedName ?? '';
  const hit = tables.memberIn(cls.path, prefix, name);
  if (hit >= 0) return hit;
  if (cls.language === 'go' && !prefix.includes('.')) {
    // Go methods may be declared in any file of the type's package.
    for (const f of tables.filesInDir(dirOf(cls.path))) {
      const m = f !== cls.path && f.endsWith('.go') ? tables.memberIn(f, prefix, name) : -1;
      if (m >= 0) return m;
    }
  }
  for (const p of tables.parentsOf(classIdx)) {
    const h = memberOf(p, name, tables, walked, depth + 1);
    if (h >= 0) return h;
  }
  return -1;
}

/**
 * A member lookup's answer. Once it leaves the class's own file (or the class has parents), it
 * depends on the member name and on every class walked (their parents may be re-resolved).
 */
function member(classIdx: number, name: string, tables: SymbolTables, confidence: number, deps: Dependencies): NameResolution {
  const walked: number[] = [];
  const m = memberOf(classIdx, name, tables, walked);
  const cls = tables.node(classIdx);
  const local = walked.length === 1 && tables.parentsOf(classIdx).length === 0 && cls.language !== 'go' && (m < 0 || tables.node(m).path === cls.path);
  if (!local) {
    deps.push(name);
    for (const c of walked) deps.push(tables.node(c).label);
  }
  return m < 0 ? NONE : { targets: [m], confidence };
}

/** Picks among workspace-wide candidates: unique → 0.7; else prefer one in the same directory; else up to 3 at 0.3. */
function fromGlobal(name: string, candidates: number[], fromPath: string, tables: SymbolTables, deps: Dependencies): NameResolution {
  deps.push(name);
  if (candidates.length === 0) return NONE;
  if (candidates.length === 1) return { targets: candidates, confidence: 0.7 };
  // Order by id so the answer does not depend on the order files were added in.
  if (candidates.length <= 64) candidates.sort((a, b) => (tables.node(a).id < tables.node(b).id ? -1 : 1));
  const dir = dirOf(fromPath);
  const near = candidates.filter((c) => dirOf(tables.node(c).path) === dir);
  if (near.length === 1) return { targets: near, confidence: 0.6 };
  if (candidates.length <= MAX_AMBIGUOUS) return { targets: candidates, confidence: 0.3 };
  return NONE;
}

function found(targets: number[], confidence: number): NameResolution {
  return { targets: targets.length > MAX_AMBIGUOUS ? targets.slice(0, MAX_AMBIGUOUS) : targets, confidence };
}

/** A binding that hides outer definitions of its name: not a CommonJS `require()`/`import()` of a module (an import in disguise). */
function shadowingBinding(list: readonly ExtractedBinding[] | undefined): ExtractedBinding | undefined {
  const b = list?.[0];
  return b && !(b.value?.startsWith('require(') || b.value?.startsWith('import(') || b.value?.startsWith('await import(')) ? b : undefined;
}

/** A bare-name answer, or the local binding that shadows every outer definition of the name. */
type BareName = NameResolution & { shadowedBy?: ExtractedBinding };

/** Dependency key of a file's imports as read by re-export following (changes when its imports do). */
export function reexportKey(path: string): string {
  return `\0reexports:${path}`;
}

/**
 * Symbols named `name` that files export, following re-exports (`from .x import y` in a package
 * `__init__.py`, `export { y } from './x'`) up to three files deep.
 */
function exportedFrom(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>, deps: Dependencies, depth = 0): number[] {
  const direct = topLevelIn(files, name, tables, kinds);
  if (direct.length || depth >= 3) return direct;
  const out: number[] = [];
  for (const f of files) {
    deps.push(reexportKey(f));
    for (const imp of tables.importsOf(f)) {
      if (imp.targets.length === 0) continue;
      let orig: string | null = null;
      for (const raw of imp.names) {
        if (raw === '*' && out.length === 0) orig = name;
        else if (raw.replace(/^.*\s+as\s+/, '').trim() === name) orig = raw.replace(/\s+as\s+.*$/, '').trim();
      }
      if (orig === null) continue;
      const sub = imp.submodules?.get(orig);
      if (sub) continue; // a module, not a callable
      deps.push(orig);
      for (const i of exportedFrom(imp.targets, orig, tables, kinds, deps, depth + 1)) if (!out.includes(i)) out.push(i);
    }
  }
  return out;
}

/** Members `name` of the classes named like the Java files (`Util.check` in `Util.java`). */
function staticMembers(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>): number[] {
  const out: number[] = [];
  for (const f of files) {
    const cls = posix.basename(f).replace(/\.java$/, '');
    const i = tables.memberIn(f, cls, name);
    if (i >= 0 && kinds.has(tables.node(i).kind)) out.push(i);
  }
  return out;
}

/** Whether a bare name no rule found may still be matched workspace-wide (rule 4). */
function globalFallback(scope: FileScope): boolean {
  // Python and Go bind every name a file uses in the file, its package or its imports.
  if (scope.language === 'python' || scope.language === 'go') return scope.unresolvedWildcard;
  return true;
}

/** Resolves a bare name (callee without receiver, type name) from a position in a file; `line` > 0 lets local bindings shadow. */
function resolveBareName(name: string, from: string | null, scope: FileScope, tables: SymbolTables, kinds: ReadonlySet<NodeKind>, deps: Dependencies, line = 0): BareName {
  // Java keeps methods and types apart from variables: a local never shadows a call there.
  const shadows = line > 0 && scope.language !== 'java' && scope.bindings.size > 0;
  // 1. Same file, innermost lexical scope first. A class body is a scope for bare names only in
  // Java (implicit `this`); elsewhere members need a receiver, so class scopes are skipped.
  for (const q of lexicalChain(from)) {
    const holder = tables.symbolIn(scope.path, q);
    // A prefix that is no symbol here is a Go receiver type or Rust impl type declared elsewhere: a class scope.
    const inClass = holder < 0 || CLASS_LIKE.has(tables.node(holder).kind);
    if (inClass && scope.language !== 'java') continue;
    const i = tables.memberIn(scope.path, q, name);
    if (i >= 0 && inKinds(tables, i, kinds)) return { targets: [i], confidence: 1 };
    if (shadows && !inClass) {
      const b = shadowingBinding(scope.bindings.get(q)?.get(name));
      if (b) return { targets: [], confidence: 0, shadowedBy: b };
    }
  }
  const top = tables.memberIn(scope.path, '', name);
  if (top >= 0 && inKinds(tables, top, kinds)) return { targets: [top], confidence: 1 };
  if (shadows) {
    const b = shadowingBinding(scope.bindings.get('')?.get(name));
    if (b) return { targets: [], confidence: 0, shadowedBy: b };
  }
  // Everything below looks into other files, so the answer depends on who defines `name`.
  if (scope.packageFiles.length || scope.importedNames.size || scope.wildcardFiles.length) deps.push(name);
  // Go and Java: the package is the scope, so sibling files count as the same file.
  const pkg = topLevelIn(scope.packageFiles, name, tables, kinds);
  if (pkg.length) return found(pkg, pkg.length === 1 ? 1 : 0.5);
  // 2. Names imported into the file (through re-exports), then wildcard imports.
  const imported = scope.importedNames.get(name);
  if (imported) {
    // A default import is matched by its local name (`import foo from './foo'` → the `foo` declared there).
    const orig = scope.importedOriginals.get(name) ?? name;
    let hits = exportedFrom(imported, orig === 'default' ? name : orig, tables, kinds, deps);
    // Java `import static a.b.Util.check;`: a member of the imported class.
    if (!hits.length && scope.language === 'java') hits = staticMembers(imported, orig, tables, kinds);
    if (hits.length) return found(hits, hits.length === 1 ? 1 : 0.5);
  }
  let wild = topLevelIn(scope.wildcardFiles, name, tables, kinds);
  if (!wild.length && scope.language === 'java') wild = staticMembers(scope.wildcardFiles, name, tables, kinds);
  if (wild.length) return found(wild, wild.length === 1 ? 0.9 : 0.45);
  // An import that says the name comes from outside the workspace, or a builtin: never a workspace symbol.
  if (scope.externalNames.has(name) || imported) return NONE;
  if (kinds === CALLABLE_KINDS && isBuiltinFunction(scope.language, name)) return NONE;
  if (!globalFallback(scope)) return NONE;
  // 4. A workspace-wide name, only for things visible from elsewhere (never a method: it needs a receiver).
  const all: number[] = [];
  for (const i of tables.named(name)) {
    const n = tables.node(i);
    if (kinds.has(n.kind) && n.exported !== false && n.kind !== 'method') all.push(i);
  }
  return fromGlobal(name, all, scope.path, tables, deps);
}

/** The evaluator's view of this module's rules. */
function receiverContext(scope: FileScope, tables: SymbolTables, deps: Dependencies): ReceiverContext {
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
  const argType: ArgTypeOf = (text) => {
    const ctx = receiverContext(scope, tables, deps);
    const name = text.startsWith('this.') ? text.slice(5) : text;
    const declared = /^[\p{ID_Start}_$][\p{ID_Continue}$]*$/u.test(name) ? findBinding(ctx, scope, name, call.caller, call.line)?.type : undefined;
    if (declared) return declared;
    const t = receiverType(ctx, text, call.caller, call.line);
    return t && (t.kind === 'instance' || t.kind === 'class') ? tables.node(t.node).label : undefined;
  };
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
  return pickOverloads(resolveByName(call, scope, tables, deps), call, scope.path, argType, tables, deps);
}

/** Resolves a call by its name, receiver and scope (overloads not yet told apart). */
function resolveByName(call: ExtractedCall, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  const callee = call.callee;
  const recv = call.receiver?.trim();
  if (!recv) {
    if (scope.language === 'java') {
      const m = inheritedMember(callee, call.caller, scope, tables, deps);
      if (m.targets.length) return m;
    }
    const r = resolveBareName(callee, call.caller, scope, tables, CALLABLE_KINDS, deps, call.line);
    if (r.shadowedBy) return shadowedCall(r.shadowedBy, call, scope, tables, deps);
    return conversion(r, scope, tables) ? NONE : r;
  }
  // 3. self/this/cls: a member of the enclosing class or of its ancestors.
  if (SELF_RECEIVERS.has(recv)) {
    const cls = ownerClass(scope.path, call.caller, scope, tables, deps);
    const m = cls >= 0 ? member(cls, callee, tables, 1, deps) : NONE;
    return m.targets.length ? m : unknownReceiver(callee, scope, tables, deps);
  }
  if (recv === 'super' || recv.startsWith('super(') || recv === 'base') {
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
  const local = head !== '' && findBinding(ctx, scope, head, call.caller, call.line) !== undefined;
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
        // An interface that does not list the method (Go method sets, embedded interfaces): by name, as unknown.
        return m.targets.length || tables.node(type.node).kind !== 'interface' ? m : unknownReceiver(callee, scope, tables, deps);
      }
      case 'module': {
        deps.push(callee);
        const hits = exportedFrom(type.files, callee, tables, CALLABLE_KINDS, deps);
        return hits.length ? found(hits, hits.length === 1 ? type.conf : 0.5) : NONE;
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
 * Java `pop()` inside a class: a method of the innermost enclosing class that has one, its own or
 * inherited (implicit `this`, JLS 15.12.1); only class-like scopes of the file are walked.
 */
function inheritedMember(callee: string, caller: string | null, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  for (const q of lexicalChain(caller)) {
    const holder = tables.symbolIn(scope.path, q);
    if (holder < 0 || !CLASS_LIKE.has(tables.node(holder).kind)) continue;
    const m = member(holder, callee, tables, 1, deps);
    if (m.targets.length && tables.node(m.targets[0]).kind === 'method') return m;
  }
  return NONE;
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

/** A bare call of a local binding: the function it aliases (`f = helper; f()`), else nothing. */
function shadowedCall(b: ExtractedBinding, call: ExtractedCall, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  if (!b.value || b.source === 'param' || /[()[\]{}]/.test(b.value)) return NONE;
  const t = receiverType(receiverContext(scope, tables, deps), b.value, b.scope, b.line);
  return t && (t.kind === 'function' || t.kind === 'class') ? { targets: [t.node], confidence: Math.min(1, t.conf) * 0.9 } : NONE;
}

/**
 * `obj.method()` with an unknown receiver type: link only a method name that is unique (in the
 * file 0.5, in the workspace 0.4), and never one that builtin or standard types also have.
 */
function unknownReceiver(callee: string, scope: FileScope, tables: SymbolTables, deps: Dependencies): NameResolution {
  if (isBuiltinMethod(scope.language, callee) || (callee.startsWith('__') && callee.endsWith('__'))) return NONE;
  deps.push(callee);
  let methods = 0;
  let lastMethod = -1;
  let locals = 0;
  let lastLocal = -1;
  for (const i of tables.named(callee)) {
    const n = tables.node(i);
    // Overloads (`Foo.load#2`) are one method here; the overload choice picks among them later.
    if (n.kind !== 'method' || /#\d+$/.test(n.qualifiedName ?? '')) continue;
    methods++;
    lastMethod = i;
    if (n.path === scope.path) {
      locals++;
      lastLocal = i;
    }
  }
  if (locals === 1) return { targets: [lastLocal], confidence: 0.5 };
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

/**
 * Resolves a symbol named in prose (`CodeGraph.finalize`, `seek()`, `crate::a::b`) to nodes:
 * a qualifier narrows candidates by qualified name or file stem; unique → 1, up to 3 → 0.5 each.
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
      return q.endsWith(`${qual}.${name}`) || q === `${qual}.${name}` || stem === parts[parts.length - 1];
    });
  }
  if (cands.length === 0) return NONE;
  if (cands.length === 1) return { targets: cands, confidence: 1 };
  cands.sort((a, b) => (tables.node(a).id < tables.node(b).id ? -1 : 1));
  return cands.length <= MAX_AMBIGUOUS ? { targets: cands, confidence: 0.5 } : NONE;
}
