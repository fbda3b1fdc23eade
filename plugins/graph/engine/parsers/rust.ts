/**
 * Rust extraction (tree-sitter-rust from @vscode/tree-sitter-wasm 0.3.1).
 * - `impl Foo { fn bar }` gives method `Foo.bar` with parent `Foo` (even when `Foo` is declared in another
 *   file); `impl Trait for Foo` also gives inherit Foo → Trait (implements), and its methods are exported.
 *   An impl on a slice (`impl Buf for &[u8]`, `impl BufMut for &mut [core::mem::MaybeUninit<u8>]`) is named
 *   by the slice type without paths or spaces (`[u8]`, `[MaybeUninit<u8>]`).
 * - Items of an inline `mod m { }` are qualified `m.item` without a parent (modules are not symbols).
 * - `use a::b::{c, d}` → specifier `a::b`, names [c, d]; nested groups give one import per path prefix;
 *   `use a::b` → specifier `a`, names [b]; `use a` → specifier `a`, no names.
 * - `mod foo;` → specifier `self::foo`, no names: the child module file, relative to the current module.
 * - Macro invocations are not reported as calls; calls written inside a macro's arguments or a
 *   `macro_rules!` body are (`complete!(parse_uri(&mut b))`, `assert_eq!(x.len(), 1)`): tree-sitter
 *   leaves them as token trees, read as a name, `recv.name` or `Path::name` followed by `( … )`
 *   (a name after another token: `a[0]` and `k [1]` are no calls, `a.b(` is not a bare `b(`).
 */
import type { ExtractedImport, FileExtraction } from '../extraction.ts';
import type { ExportFacts, QueryLanguageSpec } from './query-spec.ts';

const IMPL_TYPE = String.raw`[
  (type_identifier) @def.impltype
  (generic_type type: (type_identifier) @def.impltype)
  (scoped_type_identifier name: (type_identifier) @def.impltype)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @def.impltype))
  (reference_type type: (type_identifier) @def.impltype)
  (array_type !length) @def.impltype
  (reference_type type: (array_type !length) @def.impltype)]`;

/** The Rust query. */
export const RUST_QUERY = String.raw`
(struct_item name: (type_identifier) @def.name) @def.type
(enum_item name: (type_identifier) @def.name) @def.type
(union_item name: (type_identifier) @def.name) @def.type
(type_item name: (type_identifier) @def.name) @def.type
(trait_item name: (type_identifier) @def.name) @def.interface
(function_item name: (identifier) @def.name) @def.function
(function_signature_item name: (identifier) @def.name) @def.function
(impl_item trait: (_) @def.trait type: ${IMPL_TYPE}) @def.impl
(impl_item !trait type: ${IMPL_TYPE}) @def.impl
(mod_item name: (identifier) @def.name body: (_)) @def.scope

(use_declaration argument: (_) @import.stmt)
(mod_item !body) @import.stmt

(call_expression function: (identifier) @call.name)
(call_expression function: (scoped_identifier path: (_) @call.recv name: (identifier) @call.name))
(call_expression function: (field_expression value: (_) @call.recv field: (field_identifier) @call.name))
(call_expression function: (generic_function function: (identifier) @call.name))
(call_expression function: (generic_function function: (scoped_identifier path: (_) @call.recv name: (identifier) @call.name)))
(call_expression function: (generic_function function: (field_expression value: (_) @call.recv field: (field_identifier) @call.name)))

((token_tree [(identifier) (self)] @call.recv . "." . (identifier) @call.name . (token_tree) @_args) (#match? @_args "^\\("))
((token_tree (identifier) @call.recv . "::" . (identifier) @call.name . (token_tree) @_args) (#match? @_args "^\\("))
((token_tree ["(" "[" "{" "," ";" "=" "==" "!=" "!" "&" "+" "-" "*" "/" "<" ">" "<=" ">=" "&&" "||" "=>" "?" "|" (mutable_specifier)] . (identifier) @call.name . (token_tree) @_args) (#match? @_args "^\\("))

(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @inherit.extends)) @inherit.owner

(type_identifier) @ref.name
(type_parameter name: (type_identifier) @ref.tparam)

[
  (function_item (visibility_modifier))
  (function_signature_item (visibility_modifier))
  (struct_item (visibility_modifier))
  (enum_item (visibility_modifier))
  (union_item (visibility_modifier))
  (type_item (visibility_modifier))
  (trait_item (visibility_modifier))
] @export.public

(let_declaration pattern: (identifier) @bind.local type: (_) @bind.type)
(let_declaration pattern: (identifier) @bind.local value: (_) @bind.value)
(let_declaration pattern: (identifier) @bind.local)
(let_declaration pattern: (tuple_pattern (identifier) @bind.unpack) value: (_) @bind.value)
(let_declaration pattern: (tuple_pattern (identifier) @bind.local) !value)
(parameter pattern: (identifier) @bind.param type: (_) @bind.type)
(for_expression pattern: (identifier) @bind.range value: (_) @bind.value)
(for_expression pattern: (tuple_pattern (identifier) @bind.local))
(field_declaration name: (field_identifier) @bind.field type: (_) @bind.type)
(type_parameter name: (type_identifier) @bind.tparam bounds: (trait_bounds . [(type_identifier) (scoped_type_identifier) (generic_type)] @bind.type))
(where_predicate left: (type_identifier) @bind.tparam bounds: (trait_bounds . [(type_identifier) (scoped_type_identifier) (generic_type)] @bind.type))
(function_item return_type: (_) @bind.returns) @bind.owner
(function_signature_item return_type: (_) @bind.returns) @bind.owner

[(line_comment) (block_comment)] @comment
`;

// Primitives are their own node type; these are the prelude and std names that are never user types.
const BUILTIN_TYPES: ReadonlySet<string> = new Set([
  'Self', 'Option', 'Result', 'Vec', 'String', 'Box', 'Rc', 'Arc', 'Cow', 'RefCell', 'Cell', 'Mutex', 'RwLock',
  'HashMap', 'HashSet', 'BTreeMap', 'BTreeSet', 'VecDeque', 'PhantomData',
]);

/** Parses a `use` argument (`a::b::{c, d as e}`) or a `mod foo;` item into imports. */
export function parseRustImport(statement: string, line: number, out: ExtractedImport[]): void {
  const text = statement.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '').replace(/\s+/g, ' ').trim();
  const mod = /^(?:pub(?:\s*\([^)]*\))?\s+)?(?:unsafe\s+)?mod\s+(?:r#)?([\p{ID_Continue}]+)\s*;$/u.exec(text);
  if (mod !== null) {
    out.push({ specifier: `self::${mod[1]}`, line, names: [] });
    return;
  }
  expandUse('', text.replace(/\s*::\s*/g, '::'), line, out);
}

function expandUse(prefix: string, tree: string, line: number, out: ExtractedImport[]): void {
  const open = tree.indexOf('{');
  if (open === -1 || !tree.endsWith('}')) {
    const path = join(prefix, tree.replace(/\s+as\s+\S+$/, ''));
    const cut = path.lastIndexOf('::');
    if (cut === -1) out.push({ specifier: path, line, names: [] });
    else out.push({ specifier: path.slice(0, cut), line, names: [path.slice(cut + 2)] });
    return;
  }
  const base = join(prefix, tree.slice(0, open).replace(/::$/, ''));
  const names: string[] = [];
  const nested: string[] = [];
  for (const item of splitTopLevel(tree.slice(open + 1, -1))) {
    // Plain names gather under this prefix; nested paths get their own imports after it.
    if (item.includes('::') || item.includes('{')) nested.push(item);
    else names.push(item.replace(/\s+as\s+\S+$/, ''));
  }
  if (names.length > 0) out.push({ specifier: base, line, names });
  for (const item of nested) expandUse(base, item, line, out);
}

function join(prefix: string, path: string): string {
  if (prefix === '') return path;
  return path === '' ? prefix : `${prefix}::${path}`;
}

function splitTopLevel(list: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= list.length; i++) {
    const c = list[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if ((c === ',' && depth === 0) || i === list.length) {
      const item = list.slice(start, i).trim();
      if (item !== '') items.push(item);
      start = i + 1;
    }
  }
  return items;
}

/** Rust visibility: any `pub` (including `pub(crate)`, visible outside the file); trait-impl methods; methods of a public trait. */
export function isRustExported(facts: ExportFacts): boolean {
  if (facts.marked) return true;
  const parent = facts.parent;
  if (parent === undefined) return false;
  if (parent.kind === 'impl') return parent.trait !== undefined;
  return parent.kind === 'interface' && parent.exported;
}

/** An attribute that makes a function a test or benchmark: `#[test]`, `#[bench]`, `#[tokio::test]`, `#[rstest]`. */
const TEST_ATTRIBUTE = /^#\[(?:[\w]+::)*(?:test|bench|rstest|test_case)\b/;
/** `#[cfg(test)]` (alone or inside `all(…)`) on the line before a module. */
const CFG_TEST = /^#\[cfg\((?:all\([^)]*)?\btest\b/;

/**
 * Unit tests live in the source files in Rust: marks the items of a `#[cfg(test)]` module and the
 * functions carrying a test attribute, so that they rank as tests (a query about parsing the
 * version wants `parse_version`, not `tests.test_parse_version`).
 */
function refineRust(extraction: FileExtraction, source: string): void {
  bindModulePaths(extraction);
  markUnitTests(extraction, source);
}

/** A call qualified by a module path of the crate: `crate::abort()`, `super::panic_advance(…)`, `crate::buf::new(…)`. */
const MODULE_PATH = /^(?:crate|super)(?:::(?:super|[a-z_][a-z0-9_]*))*$/;

/**
 * Binds each module path that qualifies a call (`crate`, `super`, `crate::buf`) as a module alias
 * (an import of the module under that name), so the call resolves to the item the module holds —
 * private ones included, as Rust lets a crate's modules reach their ancestors' items.
 */
function bindModulePaths(extraction: FileExtraction): void {
  const seen = new Set(extraction.imports.map((i) => i.alias).filter((a) => a !== undefined));
  for (const call of extraction.calls) {
    const path = call.receiver?.replace(/\s+/g, '');
    if (!path || !MODULE_PATH.test(path) || seen.has(path)) continue;
    seen.add(path);
    extraction.imports.push({ specifier: path, line: call.line, names: [], alias: path });
  }
}

function markUnitTests(extraction: FileExtraction, source: string): void {
  if (!source.includes('#[')) return;
  const lines = source.split('\n');
  // The attribute lines (and blank or comment lines) right above a 1-based line.
  const attributesAbove = (line: number): string[] => {
    const out: string[] = [];
    for (let i = line - 2; i >= 0 && i >= line - 12; i--) {
      const t = lines[i].trim();
      if (t.startsWith('#[')) out.push(t);
      else if (t !== '' && !t.startsWith('//')) break;
    }
    return out;
  };
  const testModules: { name: string; line: number }[] = [];
  lines.forEach((text, i) => {
    const m = /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{/.exec(text);
    if (m && attributesAbove(i + 1).some((a) => CFG_TEST.test(a))) testModules.push({ name: m[1], line: i + 1 });
  });
  for (const sym of extraction.symbols) {
    const segments = sym.qualifiedName.split('.');
    const inTestModule = testModules.some((mod) => sym.startLine > mod.line && segments.slice(0, -1).includes(mod.name));
    if (inTestModule || (sym.kind === 'function' && attributesAbove(sym.startLine).some((a) => TEST_ATTRIBUTE.test(a)))) sym.test = true;
  }
}

/** The Rust language spec for the shared query engine. */
export const rustSpec: QueryLanguageSpec = {
  language: 'rust',
  query: RUST_QUERY,
  docs: {
    // Inner docs (`//!`) describe the enclosing module, not the next item; attributes may sit in between.
    accept: (text) => !text.startsWith('//!') && !text.startsWith('/*!'),
    between: /^\s*#!?\[.*\]\s*$/,
  },
  builtinTypes: BUILTIN_TYPES,
  parseImport: parseRustImport,
  isExported: isRustExported,
  refine: refineRust,
};
