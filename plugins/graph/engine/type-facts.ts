/**
 * Type facts of a file: the declared return types and class fields that receiver types in other
 * files read. The builder keeps them after a file's extraction is dropped, and re-links the files
 * that read them when they change.
 */
import { createHash } from 'node:crypto';
import { RETURN_BINDING, type ExtractedBinding, type FileExtraction } from './extraction.ts';
import { parseChain, PY_CONDITIONAL } from './receiver-types.ts';

/**
 * Whether a `return` binding can give a type where the result is inferred (resolve-receivers.ts
 * `inferredReturn`): a cast's type, a plain chain (`p`, `cls(app)`, `self.make()`), a conditional.
 * A literal or an operator (`0`, `"x"`, `[]`, `a + b`) cannot, and one such return makes the whole
 * inference unknown: such a function keeps nothing.
 */
function typable(b: ExtractedBinding): boolean | null {
  if (b.type !== undefined) return true;
  if (b.value === undefined) return null; // not read
  return PY_CONDITIONAL.test(b.value) || parseChain(b.value) !== null;
}

/** Return types and fields of a file's symbols, kept after its extraction is dropped. */
export interface TypeFacts {
  /** qualifiedName → declared result type. */
  returns: ReadonlyMap<string, string>;
  /** class qualifiedName → field name → declared type and/or value. */
  fields: ReadonlyMap<string, ReadonlyMap<string, { type?: string; value?: string }>>;
  /** qualifiedName → declared parameter types (Java methods and constructors, for overloads). */
  params: ReadonlyMap<string, string[]>;
  /** qualifiedNames of Python `@property` getters (accesses of them are calls). */
  properties: ReadonlySet<string>;
  /** qualifiedNames of Java methods declared `private`. */
  privates: ReadonlySet<string>;
  /** Module-level type aliases: name → the type they stand for, as written (`Callable[[Request], Awaitable[Response]]`). */
  aliases: ReadonlyMap<string, string>;
  /**
   * Module-level variables holding a value a receiver can be typed by (`client = Client()`, `inst:
   * Klass = make()`): name → its declared type and/or value, the first binding of the name. Another
   * module importing the name calls methods on it (`from app import db; db.commit()`).
   */
  globals: ReadonlyMap<string, { type?: string; value?: string }>;
  /** class qualifiedName → each base it extends, as a dotted name (`httpx.Client`, `ArrayList`). */
  bases: ReadonlyMap<string, readonly string[]>;
  /**
   * Implementing type's qualifiedName → the traits/interfaces it implements, by name as written (Rust
   * `impl Buf for Bytes`, `impl Buf for &[u8]` under `[u8]`: a type the workspace need not declare).
   */
  implemented: ReadonlyMap<string, readonly string[]>;
  /**
   * qualifiedName of a function with no declared result → its `return` bindings and the locals they
   * read (Python): what the function gives, inferred where it is called.
   */
  inferred: ReadonlyMap<string, readonly ExtractedBinding[]>;
  /** Local names the file imports (re-exports are followed through them). */
  imported: string[];
  /**
   * Changes when the facts or the file's imports (which the facts' names resolve through) change: a
   * SHA-1 of their JSON (the JSON itself, kept per file, held ~10 MB on the python3 prefix).
   */
  signature: string;
  /** A SHA-1 of the file's imports alone: when it changes, every name the facts resolve through may read differently. */
  importsSignature: string;
}

const CLASS_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'type']);

/**
 * The empty collections every file without such facts shares (~150 bytes each otherwise: four per
 * file, most of them empty). Never written to: type facts are read only once made.
 */
const NO_STRINGS: Map<string, string> = new Map();
const NO_PARAMS: Map<string, string[]> = new Map();
const NO_FIELDS: Map<string, Map<string, { type?: string; value?: string }>> = new Map();
const NO_NAMES: Set<string> = new Set();
const NO_BASES: Map<string, string[]> = new Map();
const NO_INFERRED: Map<string, ExtractedBinding[]> = new Map();
const NO_GLOBALS: Map<string, { type?: string; value?: string }> = new Map();
/** Locals kept per function for its inferred result (the return values and what they read, a few steps deep). */
const MAX_INFERRED_BINDINGS = 12;

/**
 * The bindings an unannotated function's result is inferred from: its `return` bindings and the
 * locals and parameters their values start with, followed a few steps (`p = make(cls)` then `return p`
 * keeps `p` and `cls`). Functions with a declared result keep none.
 */
export function returnBindings(extraction: FileExtraction): Map<string, ExtractedBinding[]> {
  const out = new Map<string, ExtractedBinding[]>();
  const bindings = extraction.bindings ?? [];
  if (!bindings.some((b) => b.name === RETURN_BINDING)) return out;
  const declared = new Set(extraction.symbols.filter((s) => s.returnType).map((s) => s.qualifiedName));
  const byScope = new Map<string, ExtractedBinding[]>();
  for (const b of bindings) {
    if (b.scope === null) continue;
    const list = byScope.get(b.scope);
    if (list) list.push(b);
    else byScope.set(b.scope, [b]);
  }
  for (const [scope, list] of byScope) {
    if (declared.has(scope)) continue;
    const kept = list.filter((b) => b.name === RETURN_BINDING).slice(0, 4);
    const read = kept.map(typable).filter((t) => t !== null);
    if (read.length === 0 || read.includes(false)) continue; // its result could not be inferred: nothing to keep
    const wanted = kept.map((b) => b.value ?? '');
    for (let i = 0; i < wanted.length && kept.length < MAX_INFERRED_BINDINGS; i++) {
      const head = /^(?:await\s+)?([A-Za-z_]\w*)/.exec(wanted[i])?.[1];
      if (!head) continue;
      for (const b of list) {
        if (b.name !== head || kept.includes(b) || kept.length >= MAX_INFERRED_BINDINGS) continue;
        kept.push(b);
        if (b.value) wanted.push(b.value);
      }
    }
    out.set(scope, kept);
  }
  return out;
}

/** The type facts of an extraction (fields: bindings whose scope is a class-like symbol of the file). */
export function typeFactsOf(extraction: FileExtraction): TypeFacts {
  const returns = new Map<string, string>();
  const params = new Map<string, string[]>();
  const classes = new Set<string>();
  const properties = new Set<string>();
  const privates = new Set<string>();
  for (const s of extraction.symbols) {
    if (s.private) privates.add(s.qualifiedName);
    if (s.returnType) returns.set(s.qualifiedName, s.returnType);
    if (s.params) params.set(s.qualifiedName, s.params);
    if (s.property) properties.add(s.qualifiedName);
    if (CLASS_KINDS.has(s.kind)) classes.add(s.qualifiedName);
  }
  const fields = new Map<string, Map<string, { type?: string; value?: string }>>();
  const bounds = typeParameterBounds(extraction, classes);
  for (const b of extraction.bindings ?? []) {
    if (b.scope === null || !classes.has(b.scope) || (!b.type && !b.value) || b.source === 'tparam') continue;
    let byName = fields.get(b.scope);
    if (!byName) fields.set(b.scope, (byName = new Map()));
    const cur = byName.get(b.name);
    // A declared type wins over an inferred value; the first declaration wins over later ones.
    if (!cur || (!cur.type && b.type)) byName.set(b.name, b.type ? { type: boundedType(b.type, bounds.get(b.scope)) } : { value: b.value });
  }
  const inferred = returnBindings(extraction);
  const aliases = new Map<string, string>();
  for (const b of extraction.bindings ?? []) if (b.source === 'alias' && b.scope === null && b.type && !aliases.has(b.name)) aliases.set(b.name, b.type);
  const globals = new Map<string, { type?: string; value?: string }>();
  const seenGlobals = new Set<string>();
  for (const b of extraction.bindings ?? []) {
    if (b.scope !== null || b.source !== 'assign' || b.name === RETURN_BINDING || seenGlobals.has(b.name)) continue;
    seenGlobals.add(b.name);
    // The first binding of the name, if a receiver can be typed by it (no literal, no operator).
    if (b.type) globals.set(b.name, { type: b.type });
    else if (typable(b)) globals.set(b.name, { value: b.value });
  }
  // Each child's bases as dotted names, and the traits/interfaces it implements by name.
  const bases = new Map<string, string[]>();
  const implemented = new Map<string, string[]>();
  for (const inh of extraction.inherits) {
    const [map, name] = inh.kind === 'extends' ? [bases, inh.qualifier ? `${inh.qualifier}.${inh.parent}` : inh.parent] : [implemented, inh.parent];
    const list = map.get(inh.child);
    if (!list) map.set(inh.child, [name]);
    else if (!list.includes(name)) list.push(name);
  }
  const imports = extraction.imports.map((i) => `${i.specifier}:${i.names.join(',')}:${i.alias ?? ''}`);
  const json =
    returns.size || fields.size || params.size || properties.size || bases.size || aliases.size || inferred.size || implemented.size || globals.size
      ? JSON.stringify([[...returns], [...fields].map(([k, v]) => [k, [...v]]), imports, [...params], [...properties], [...bases], [...aliases], [...inferred], [...privates], [...implemented], [...globals]])
      : JSON.stringify(imports);
  const signature = createHash('sha1').update(json).digest('base64');
  const importsSignature = imports.length ? createHash('sha1').update(JSON.stringify(imports)).digest('base64') : '';
  const imported = extraction.imports.flatMap((i) => i.names.map((n) => n.replace(/^.*\s+as\s+/, '').trim()));
  return {
    returns: returns.size ? returns : NO_STRINGS,
    fields: fields.size ? fields : NO_FIELDS,
    params: params.size ? params : NO_PARAMS,
    properties: properties.size ? properties : NO_NAMES,
    privates: privates.size ? privates : NO_NAMES,
    bases: bases.size ? bases : NO_BASES,
    implemented: implemented.size ? implemented : NO_BASES,
    aliases: aliases.size ? aliases : NO_STRINGS,
    globals: globals.size ? globals : NO_GLOBALS,
    inferred: inferred.size ? inferred : NO_INFERRED,
    imported,
    signature,
    importsSignature,
  };
}

/** `Foo.load#2` is found by the name `load`. */
const last = (q: string): string => q.slice(q.lastIndexOf('.') + 1).replace(/#\d+$/, '');

/** Names whose resolution elsewhere may read these facts: owners of return types, fields and bases, properties, type aliases, module-level variables, and imported names. */
export function typeFactNames(facts: TypeFacts): string[] {
  // A trait's callers dispatch to what implements it (link-file.ts): they depend on the trait's name.
  const traits = [...facts.implemented.values()].flat();
  return [...[...facts.returns.keys()].map(last), ...[...facts.params.keys()].map(last), ...[...facts.fields.keys()].map(last), ...[...facts.properties].map(last), ...[...facts.bases.keys()].map(last), ...facts.aliases.keys(), ...facts.globals.keys(), ...[...facts.inferred.keys()].map(last), ...traits, ...facts.imported];
}

/**
 * The bounds of the type parameters declared on each class-like scope of the file (a Rust
 * `impl<T: Buf> … for Chain<T>` beside `struct Chain<T> { a: T }`: both are `Chain`): name → the
 * bound as written, the first one declared.
 */
function typeParameterBounds(extraction: FileExtraction, classes: ReadonlySet<string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const b of extraction.bindings ?? []) {
    if (b.source !== 'tparam' || !b.type || b.scope === null || !classes.has(b.scope)) continue;
    let byName = out.get(b.scope);
    if (!byName) out.set(b.scope, (byName = new Map()));
    if (!byName.has(b.name)) byName.set(b.name, b.type);
  }
  return out;
}

/** A field's declared type with the class's bounded type parameters read as their bounds (`a: T`, `T: Buf` → `Buf`; `Option<T>` → `Option<Buf>`). */
function boundedType(type: string, bounds: ReadonlyMap<string, string> | undefined): string {
  if (!bounds) return type;
  return type.replace(/[\p{ID_Start}_][\p{ID_Continue}]*/gu, (name) => bounds.get(name) ?? name);
}

/** Adds `name(key, value)` for each key whose value differs between `a` and `b` (present in one only included). */
function diffKeys<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>, same: (x: V, y: V) => boolean, out: Set<string>, name: (key: string, value: V) => Iterable<string>): void {
  for (const [k, v] of a) {
    const w = b.get(k);
    if (w === undefined || !same(v, w)) for (const n of name(k, v)) out.add(n);
  }
  for (const [k, w] of b) if (!a.has(k)) for (const n of name(k, w)) out.add(n);
}

function diffSets(a: ReadonlySet<string>, b: ReadonlySet<string>, out: Set<string>): void {
  for (const q of a) if (!b.has(q)) out.add(last(q));
  for (const q of b) if (!a.has(q)) out.add(last(q));
}

const sameText = (x: string, y: string): boolean => x === y;
const sameList = (x: readonly string[], y: readonly string[]): boolean => x.length === y.length && x.every((v, i) => v === y[i]);
const sameJson = (x: unknown, y: unknown): boolean => JSON.stringify(x instanceof Map ? [...x] : x) === JSON.stringify(y instanceof Map ? [...y] : y);

/**
 * The names (as typeFactNames gives them) whose facts differ between a file's previous and new facts:
 * what other files must re-link. Adding one function to a module re-links the files that read that
 * function's facts, not every file reading any of the module's names (a one-function edit of
 * json/decoder.py re-linked 114 files of the stdlib for `decode` alone). When the file's imports
 * changed, every name of both, since the facts' types resolve through them.
 */
export function changedTypeFactNames(prev: TypeFacts, next: TypeFacts): string[] {
  if (prev.signature === next.signature) return [];
  if (prev.importsSignature !== next.importsSignature) return [...new Set([...typeFactNames(prev), ...typeFactNames(next)])];
  const out = new Set<string>();
  const byLast = (k: string): string[] => [last(k)];
  diffKeys(prev.returns, next.returns, sameText, out, byLast);
  diffKeys(prev.params, next.params, sameList, out, byLast);
  diffKeys(prev.fields, next.fields, sameJson, out, byLast);
  diffKeys(prev.bases, next.bases, sameList, out, byLast);
  diffKeys(prev.inferred, next.inferred, sameJson, out, byLast);
  diffKeys(prev.aliases, next.aliases, sameText, out, (k) => [k]);
  diffKeys(prev.globals, next.globals, sameJson, out, (k) => [k]);
  // A trait's callers depend on the trait's name: the traits of an implementer whose list changed.
  diffKeys(prev.implemented, next.implemented, sameList, out, (k) => [...(prev.implemented.get(k) ?? []), ...(next.implemented.get(k) ?? [])]);
  diffSets(prev.properties, next.properties, out);
  diffSets(prev.privates, next.privates, out);
  return [...out];
}
