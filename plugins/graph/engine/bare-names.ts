/**
 * Bare names (a callee without receiver, a type name) by the precedence of docs/graph-model.md:
 * the file's lexical scopes, its package, names imported into it (following re-exports), wildcard
 * imports, then the workspace-wide fallback. Local bindings shadow outer definitions.
 */
import { isBuiltinFunction } from './builtin-names.ts';
import type { ExtractedBinding } from './extraction.ts';
import type { NodeKind } from './graph.ts';
import type { FileScope } from './file-scope.ts';
import { fromGlobal, globalFallback } from './global-names.ts';
import { staticMembers } from './java-names.ts';
import { CALLABLE_KINDS, CLASS_LIKE, NONE, found, inKinds, lexicalChain, topLevelIn, type Dependencies, type NameResolution, type SymbolTables } from './resolution-tables.ts';

/**
 * Languages whose local binding starts at the statement after it (Rust `let`, Go `:=`): a call on the
 * binding's line or before it names the outer definition (`let (comparator, rest) = comparator(text)?`).
 * Elsewhere a local is the function's from its top (Python) or in its temporal dead zone (JS/TS).
 */
const BOUND_AFTER_STATEMENT: ReadonlySet<string> = new Set(['rust', 'go']);

/** A binding that hides outer definitions of its name at `line`: not a CommonJS `require()`/`import()` of a module (an import in disguise). */
function shadowingBinding(list: readonly ExtractedBinding[] | undefined, language: string, line: number): ExtractedBinding | undefined {
  const b = BOUND_AFTER_STATEMENT.has(language) ? list?.find((x) => x.line < line) : list?.[0];
  return b && !(b.value?.startsWith('require(') || b.value?.startsWith('import(') || b.value?.startsWith('await import(')) ? b : undefined;
}

/** A bare-name answer, or the local binding that shadows every outer definition of the name. */
export type BareName = NameResolution & { shadowedBy?: ExtractedBinding };

/** Dependency key of a file's imports as read by re-export following (changes when its imports do). */
export function reexportKey(path: string): string {
  return `\0reexports:${path}`;
}

/** An import's names read once: local name → original name and position of its last binding, and the last `*`. */
interface ImportedNames {
  byLocal: Map<string, { orig: string; at: number }>;
  lastStar: number;
}

/** Each import's names parsed (`a as b`) once per names list: re-export following reads them for every name it looks up. */
const parsedNames = new WeakMap<readonly string[], ImportedNames>();

function importedNamesOf(names: readonly string[]): ImportedNames {
  let parsed = parsedNames.get(names);
  if (parsed) return parsed;
  parsed = { byLocal: new Map(), lastStar: -1 };
  for (let at = 0; at < names.length; at++) {
    const raw = names[at];
    if (raw === '*') parsed.lastStar = at;
    else parsed.byLocal.set(raw.replace(/^.*\s+as\s+/, '').trim(), { orig: raw.replace(/\s+as\s+.*$/, '').trim(), at });
  }
  parsedNames.set(names, parsed);
  return parsed;
}

/**
 * Symbols named `name` that files export, following re-exports (`from .x import y` in a package
 * `__init__.py`, `export { y } from './x'`) up to three files deep.
 */
export function exportedFrom(files: readonly string[], name: string, tables: SymbolTables, kinds: ReadonlySet<NodeKind>, deps: Dependencies, depth = 0): number[] {
  const direct = topLevelIn(files, name, tables, kinds);
  if (direct.length || depth >= 3) return direct;
  const out: number[] = [];
  for (const f of files) {
    deps.push(reexportKey(f));
    for (const imp of tables.importsOf(f)) {
      if (imp.targets.length === 0) continue;
      // The last of the import's names that binds `name` (a `*` binds every name while nothing was found yet).
      const parsed = importedNamesOf(imp.names);
      const named = parsed.byLocal.get(name);
      const star = out.length === 0 ? parsed.lastStar : -1;
      const orig = named !== undefined && named.at > star ? named.orig : star >= 0 ? name : null;
      if (orig === null) continue;
      const sub = imp.submodules?.get(orig);
      if (sub) continue; // a module, not a callable
      deps.push(orig);
      for (const i of exportedFrom(imp.targets, orig, tables, kinds, deps, depth + 1)) if (!out.includes(i)) out.push(i);
    }
  }
  return out;
}

/** Resolves a bare name (callee without receiver, type name) from a position in a file; `line` > 0 lets local bindings shadow. */
export function resolveBareName(name: string, from: string | null, scope: FileScope, tables: SymbolTables, kinds: ReadonlySet<NodeKind>, deps: Dependencies, line = 0): BareName {
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
      const b = shadowingBinding(scope.bindings.get(q)?.get(name), scope.language, line);
      if (b) return { targets: [], confidence: 0, shadowedBy: b };
    }
  }
  const top = tables.memberIn(scope.path, '', name);
  if (top >= 0 && inKinds(tables, top, kinds)) return { targets: [top], confidence: 1 };
  if (shadows) {
    const b = shadowingBinding(scope.bindings.get('')?.get(name), scope.language, line);
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
