/**
 * Python extraction (tree-sitter-python from @vscode/tree-sitter-wasm 0.3.1).
 * Imports keep relative dots in the specifier (`.x`, `..pkg.mod`, `.`); `import a as b` records alias `b`.
 */
import type { ExtractedImport, ExtractedSymbol, FileExtraction } from '../extraction.ts';
import type { ExportFacts, QueryLanguageSpec } from './query-spec.ts';
import { applyRenames, groupByPlainName, mergePythonProperties } from './py-properties.ts';
import { repairPython } from './py-repair.ts';

/** `for a, b in zip(xs, ys)` (a loop or a comprehension's clause): the k-th target ranges over the k-th argument. */
function zipTargets(clause: string, wrap: string): string {
  const patterns: string[] = [];
  for (let k = 0; k < 3; k++) {
    const skip = '(_) . '.repeat(k);
    const pattern = `(${clause} left: (pattern_list . ${skip}(identifier) @bind.range) right: (call function: (identifier) @_zip arguments: (argument_list . ${skip}(_) @bind.value)) (#eq? @_zip "zip"))`;
    patterns.push(wrap ? wrap.replace('%', pattern) : pattern);
  }
  return patterns.join('\n');
}

/**
 * A comprehension's loop targets (`[f.name for f in fields]`, `{k: v for k, v in d.items()}`),
 * bound like a `for` loop's but seen only inside the comprehension, from its first line
 * (`bind.comprehension` is the clause; the element before it reads the targets).
 */
function comprehensionTargets(): string {
  return [
    '(for_in_clause left: (identifier) @bind.range right: (_) @bind.value) @bind.comprehension',
    '(for_in_clause left: (pattern_list (identifier) @bind.local)) @bind.comprehension',
    '(for_in_clause left: (tuple_pattern (identifier) @bind.local)) @bind.comprehension',
    '(for_in_clause left: (pattern_list (identifier) . (identifier) @bind.range .) right: (call function: (attribute object: (_) @bind.mapvalues attribute: (identifier) @_items)) (#eq? @_items "items")) @bind.comprehension',
    '(for_in_clause left: (pattern_list (identifier) . (identifier) @bind.range .) right: (call function: (identifier) @_enumerate arguments: (argument_list . (_) @bind.value)) (#eq? @_enumerate "enumerate")) @bind.comprehension',
    zipTargets('for_in_clause', '% @bind.comprehension'),
  ].join('\n');
}

/** The Python query: one pattern per fact, captures named as query-extractor.ts describes. */
export const PYTHON_QUERY = String.raw`
(class_definition name: (identifier) @def.name) @def.class
(function_definition name: (identifier) @def.name) @def.function

(class_definition body: (block . (expression_statement . (string) @doc.string))) @doc.owner
(function_definition body: (block . (expression_statement . (string) @doc.string))) @doc.owner

(import_statement) @import.stmt
(import_from_statement) @import.stmt
(future_import_statement) @import.stmt

(call function: (identifier) @call.name)
(call function: (attribute object: (_) @call.recv attribute: (identifier) @call.name))
(attribute object: (_) @call.recv attribute: (identifier) @call.access)

(class_definition superclasses: (argument_list [(identifier) (attribute) (subscript)] @inherit.extends)) @inherit.owner

(type (identifier) @ref.name)
(type (attribute attribute: (identifier) @ref.name))
(type (binary_operator) @ref.union)
(type (list (identifier) @ref.name))
(generic_type (identifier) @ref.name)
(type (string (string_content) @ref.string))

(assignment left: (identifier) @bind.local right: (_) @bind.value)
(assignment left: (identifier) @bind.local type: (type) @bind.type)
(assignment left: (pattern_list (identifier) @bind.local))
(assignment left: (tuple_pattern (identifier) @bind.local))
(assignment left: (pattern_list (identifier) @bind.unpack) right: (_) @bind.value)
(assignment left: (tuple_pattern (identifier) @bind.unpack) right: (_) @bind.value)
(assignment left: (pattern_list (attribute object: (identifier) @_self attribute: (identifier) @bind.selfunpack)) right: (_) @bind.value (#eq? @_self "self"))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.selffield) right: (_) @bind.value (#eq? @_self "self"))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.selffield) type: (type) @bind.type (#eq? @_self "self"))
(named_expression name: (identifier) @bind.local value: (_) @bind.value)
(parameters (identifier) @bind.param)
(typed_parameter . (identifier) @bind.param type: (type) @bind.type)
(default_parameter name: (identifier) @bind.param value: (_) @bind.default)
(typed_default_parameter name: (identifier) @bind.param type: (type) @bind.type)
(list_splat_pattern (identifier) @bind.param)
(dictionary_splat_pattern (identifier) @bind.param)
(for_statement left: (identifier) @bind.range right: (_) @bind.value)
(for_statement left: (pattern_list (identifier) @bind.local))
(for_statement left: (pattern_list (identifier) . (identifier) @bind.range .) right: (call function: (attribute object: (_) @bind.mapvalues attribute: (identifier) @_items)) (#eq? @_items "items"))
(for_statement left: (pattern_list (identifier) . (identifier) @bind.range .) right: (call function: (identifier) @_enumerate arguments: (argument_list . (_) @bind.value)) (#eq? @_enumerate "enumerate"))
(for_statement left: (tuple_pattern (identifier) @bind.local))
${zipTargets('for_statement', '')}
(with_item value: (as_pattern (_) @bind.value alias: (as_pattern_target (identifier) @bind.with)))
(except_clause value: (as_pattern [(identifier) (attribute)] @bind.type alias: (as_pattern_target (identifier) @bind.local)))
(function_definition return_type: (type) @bind.returns) @bind.owner
(return_statement (_) @bind.retval)
(module (expression_statement (assignment left: (identifier) @bind.alias right: (subscript) @bind.type)))
(module (if_statement consequence: (block (expression_statement (assignment left: (identifier) @bind.alias right: (subscript) @bind.type)))))
(assignment left: (identifier) @bind.alias type: (type [(identifier) (attribute attribute: (identifier))] @_typealias) right: (_) @bind.type (#match? @_typealias "(^|[.])TypeAlias$"))
(module (expression_statement (assignment left: (identifier) @bind.alias right: (call function: [(identifier) (attribute attribute: (identifier))] @_typevar arguments: (argument_list (keyword_argument name: (identifier) @_bound value: (_) @bind.type))) (#match? @_typevar "(^|[.])TypeVar$") (#eq? @_bound "bound"))))
(if_statement condition: (call function: (identifier) @_isinstance arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.type .)) consequence: (block) @bind.block (#eq? @_isinstance "isinstance"))
(elif_clause condition: (call function: (identifier) @_isinstance arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.type .)) consequence: (block) @bind.block (#eq? @_isinstance "isinstance"))
(assert_statement . (call function: (identifier) @_isinstance arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.type .)) (#eq? @_isinstance "isinstance"))
${comprehensionTargets()}
(block (if_statement condition: (not_operator argument: (call function: (identifier) @_isinstance arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.type .))) consequence: (block [(raise_statement) (return_statement) (continue_statement) (break_statement)] .)) (#eq? @_isinstance "isinstance")) @bind.block
(if_statement condition: (call function: (identifier) @_issubclass arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.classtype .)) consequence: (block) @bind.block (#eq? @_issubclass "issubclass"))
(elif_clause condition: (call function: (identifier) @_issubclass arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.classtype .)) consequence: (block) @bind.block (#eq? @_issubclass "issubclass"))
(block (if_statement condition: (not_operator argument: (call function: (identifier) @_issubclass arguments: (argument_list . (identifier) @bind.narrow . [(identifier) (attribute) (tuple)] @bind.classtype .))) consequence: (block [(raise_statement) (return_statement) (continue_statement) (break_statement)] .)) (#eq? @_issubclass "issubclass")) @bind.block
`;

/** Python 3.12 (PEP 695): `type X = ...` statements are type symbols; type parameters are not references. */
export const PEP695_QUERY = String.raw`
(type_alias_statement left: (type (identifier) @def.name)) @def.type
(type_alias_statement left: (type (generic_type (identifier) @def.name))) @def.type
(type_alias_statement left: (type (generic_type (type_parameter (type [(identifier) @ref.tparam (constrained_type . (type (identifier) @ref.tparam)) (splat_type (identifier) @ref.tparam)])))))
(function_definition type_parameters: (type_parameter (type [(identifier) @ref.tparam (constrained_type . (type (identifier) @ref.tparam)) (splat_type (identifier) @ref.tparam)])))
(class_definition type_parameters: (type_parameter (type [(identifier) @ref.tparam (constrained_type . (type (identifier) @ref.tparam)) (splat_type (identifier) @ref.tparam)])))
`;

// Built-in and typing names that never point at a declaration in the user's code.
const BUILTIN_TYPES: ReadonlySet<string> = new Set([
  'int', 'float', 'complex', 'str', 'bytes', 'bytearray', 'bool', 'object', 'None', 'type', 'list', 'dict',
  'set', 'frozenset', 'tuple', 'memoryview', 'range', 'slice', 'Any', 'Optional', 'Union', 'List', 'Dict',
  'Set', 'FrozenSet', 'Tuple', 'Type', 'Callable', 'Literal', 'ClassVar', 'Final', 'Annotated', 'Self',
  'NoReturn', 'Never',
]);

const FROM_IMPORT = /^\s*from\s+(\S+)\s+import\b([\s\S]*)$/;
const PLAIN_IMPORT = /^\s*import\b([\s\S]*)$/;

/** Parses `import a.b as c, d` and `from ..x import (y as z, w)` statements. */
export function parsePythonImport(statement: string, line: number, out: ExtractedImport[]): void {
  // Comments, line continuations and parentheses carry no names.
  const text = statement.replace(/#[^\n]*/g, ' ').replace(/\\\r?\n/g, ' ').replace(/[()]/g, ' ');
  const from = FROM_IMPORT.exec(text);
  if (from !== null) {
    // `from m import A as B` binds B: kept as 'A as B', as the other languages' import names are.
    const names = splitList(from[2]).map(([name, alias]) => (alias !== undefined && alias !== name ? `${name} as ${alias}` : name));
    out.push({ specifier: from[1], line, names });
    return;
  }
  const plain = PLAIN_IMPORT.exec(text);
  if (plain === null) return;
  for (const [specifier, alias] of splitList(plain[1])) {
    const entry: ExtractedImport = { specifier, line, names: [] };
    if (alias !== undefined) entry.alias = alias;
    out.push(entry);
  }
}

function splitList(list: string): [string, string | undefined][] {
  const items: [string, string | undefined][] = [];
  for (const part of list.split(',')) {
    const words = part.trim().split(/\s+/);
    if (words[0] === '') continue;
    items.push([words[0], words[1] === 'as' ? words[2] : undefined]);
  }
  return items;
}

/** Python visibility: no leading underscore (dunder names are public protocol), not local to a function, inside a visible class. */
export function isPythonExported(facts: ExportFacts): boolean {
  const name = facts.name;
  const dunder = name.length > 4 && name.startsWith('__') && name.endsWith('__');
  if (name.startsWith('_') && !dunder) return false;
  if (facts.insideFunction) return false;
  return facts.parent === undefined || facts.parent.exported;
}

const OVERLOAD = /^\s*@(?:typing\.|t\.)?overload\b/;

/** True when the decorators right above a `def` line include `@overload`. */
function isOverloadStub(lines: readonly string[], defLine: number): boolean {
  for (let i = defLine - 2; i >= 0; i--) {
    const text = lines[i];
    if (OVERLOAD.test(text)) return true;
    if (!/^\s*@/.test(text) && !/^\s*[)\]},]/.test(text) && text.trim() !== '') return false;
  }
  return false;
}

/**
 * Merges `@overload` stubs into their implementation: one symbol with the plain qualified name (the
 * last undecorated definition, or the first stub in a stub-only file), the stubs' lines kept in
 * `overloads`; what the stubs referenced moves to it, and later redefinitions are renumbered.
 */
export function mergePythonOverloads(ex: FileExtraction, source: string): void {
  const groups = groupByPlainName(ex.symbols, (s) => s.kind === 'function' || s.kind === 'method');
  const lines = source.split('\n');
  const rename = new Map<string, string>();
  const dropped = new Set<ExtractedSymbol>();
  for (const [plain, group] of groups) {
    if (group.length < 2) continue;
    const stubs = group.filter((s) => isOverloadStub(lines, s.startLine));
    if (stubs.length === 0) continue;
    const impls = group.filter((s) => !stubs.includes(s));
    const keep = impls.length ? impls[impls.length - 1] : stubs[0];
    const merged = stubs.filter((s) => s !== keep);
    keep.overloads = merged.map((s) => s.startLine);
    for (const s of merged) {
      dropped.add(s);
      rename.set(s.qualifiedName, '');
    }
    // The survivors take `name`, `name#2`, … again, the implementation first.
    const survivors = [keep, ...group.filter((s) => s !== keep && !dropped.has(s))];
    survivors.forEach((s, i) => rename.set(s.qualifiedName, i === 0 ? plain : `${plain}#${i + 1}`));
    for (const s of merged) rename.set(s.qualifiedName, rename.get(keep.qualifiedName)!);
  }
  if (rename.size > 0) applyRenames(ex, rename, dropped, true);
}

/** Python's last word: overload stubs, then property accessors, merged. */
function refinePython(ex: FileExtraction, source: string): void {
  mergePythonOverloads(ex, source);
  mergePythonProperties(ex, source);
}

/** The Python language spec for the shared query engine. */
export const pythonSpec: QueryLanguageSpec = {
  language: 'python',
  query: PYTHON_QUERY + PEP695_QUERY,
  docs: 'docstring',
  builtinTypes: BUILTIN_TYPES,
  parseImport: parsePythonImport,
  isExported: isPythonExported,
  repair: repairPython,
  refine: refinePython,
};
