/**
 * Go extraction (tree-sitter-go from @vscode/tree-sitter-wasm 0.3.1).
 * - `func (r *Foo) Bar()` gives method `Foo.Bar` with parent `Foo` (which may be declared in another file).
 * - Interface types are `interface`; every other named type (struct, alias, func type...) is `type`.
 * - Embedded struct fields and embedded interfaces are reported as `extends`.
 * - A generic function called with explicit type arguments is a call: `New[K, V](a, b)`, and `New[T](x)`,
 *   which the grammar reads as a conversion (a conversion of a generic type resolves to the type: no call).
 * - Imports: specifier is the import path; names are ['*'] for a dot import, else empty; a named import
 *   records its alias (`_` is dropped).
 */
import type { ExtractedImport } from '../extraction.ts';
import type { ExportFacts, QueryLanguageSpec } from './query-spec.ts';

/** The Go query. */
export const GO_QUERY = String.raw`
(function_declaration name: (identifier) @def.name) @def.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [
    (type_identifier) @def.recv
    (pointer_type (type_identifier) @def.recv)
    (generic_type type: (type_identifier) @def.recv)
    (pointer_type (generic_type type: (type_identifier) @def.recv))]))
  name: (field_identifier) @def.name) @def.method
(type_spec name: (type_identifier) @def.name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @def.name type: [
  (type_identifier) (generic_type) (qualified_type) (pointer_type) (struct_type) (array_type) (slice_type)
  (map_type) (channel_type) (function_type) (negated_type) (parenthesized_type)]) @def.type
(type_alias name: (type_identifier) @def.name) @def.type

(import_spec) @import.stmt

(call_expression function: (identifier) @call.name)
(call_expression function: (selector_expression operand: (_) @call.recv field: (field_identifier) @call.name))
(type_conversion_expression type: (generic_type type: (type_identifier) @call.name))
(type_conversion_expression type: (generic_type type: (qualified_type package: (package_identifier) @call.recv name: (type_identifier) @call.name)))

(type_spec type: (struct_type (field_declaration_list (field_declaration !name type: (_) @inherit.extends)))) @inherit.owner
(type_spec type: (interface_type (type_elem . [(type_identifier) (qualified_type)] @inherit.extends .))) @inherit.owner

(type_identifier) @ref.name
(type_parameter_declaration name: (identifier) @ref.tparam)

(short_var_declaration left: (expression_list . (identifier) @bind.local) right: (expression_list . (_) @bind.value))
(short_var_declaration left: (expression_list (identifier) @bind.local))
(var_spec name: (identifier) @bind.local type: (_) @bind.type)
(var_spec name: (identifier) @bind.local value: (expression_list . (_) @bind.value))
(var_spec name: (identifier) @bind.local)
(parameter_declaration name: (identifier) @bind.param type: (_) @bind.type)
(variadic_parameter_declaration name: (identifier) @bind.param)
(range_clause left: (expression_list (identifier) . (identifier) @bind.range) right: (_) @bind.value)
(range_clause left: (expression_list . (identifier) @bind.local))
(field_declaration name: (field_identifier) @bind.field type: (_) @bind.type)
(function_declaration result: (_) @bind.returns) @bind.owner
(method_declaration result: (_) @bind.returns) @bind.owner

(comment) @comment
`;

// Predeclared types: never a declaration in the user's code.
const BUILTIN_TYPES: ReadonlySet<string> = new Set([
  'bool', 'string', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64',
  'uintptr', 'byte', 'rune', 'float32', 'float64', 'complex64', 'complex128', 'error', 'any', 'comparable',
]);

const SPEC = /^(?:([\p{ID_Continue}.]+)\s+)?(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)/u;

/** Parses one import spec: `"fmt"`, `f "fmt"`, `. "strings"`, `_ "embed"`. */
export function parseGoImport(statement: string, line: number, out: ExtractedImport[]): void {
  const m = SPEC.exec(statement.trim());
  if (m === null) return;
  const name = m[1];
  const entry: ExtractedImport = { specifier: m[2] ?? m[3], line, names: name === '.' ? ['*'] : [] };
  if (name !== undefined && name !== '.' && name !== '_') entry.alias = name;
  out.push(entry);
}

/** Go visibility: a capitalised name declared at package level (methods included). */
export function isGoExported(facts: ExportFacts): boolean {
  return !facts.insideFunction && /^\p{Lu}/u.test(facts.name);
}

/** The Go language spec for the shared query engine. */
export const goSpec: QueryLanguageSpec = {
  language: 'go',
  query: GO_QUERY,
  docs: {},
  builtinTypes: BUILTIN_TYPES,
  parseImport: parseGoImport,
  isExported: isGoExported,
  closureTypes: new Set(['func_literal']),
};
