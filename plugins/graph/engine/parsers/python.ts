/**
 * Python extraction (tree-sitter-python from @vscode/tree-sitter-wasm 0.3.1).
 * Imports keep relative dots in the specifier (`.x`, `..pkg.mod`, `.`); `import a as b` records alias `b`.
 */
import type { ExtractedImport } from '../extraction.ts';
import type { ExportFacts, QueryLanguageSpec } from './query-spec.ts';

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
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.selffield) right: (_) @bind.value (#eq? @_self "self"))
(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @bind.selffield) type: (type) @bind.type (#eq? @_self "self"))
(named_expression name: (identifier) @bind.local value: (_) @bind.value)
(parameters (identifier) @bind.param)
(typed_parameter . (identifier) @bind.param type: (type) @bind.type)
(default_parameter name: (identifier) @bind.param)
(typed_default_parameter name: (identifier) @bind.param type: (type) @bind.type)
(list_splat_pattern (identifier) @bind.param)
(dictionary_splat_pattern (identifier) @bind.param)
(for_statement left: (identifier) @bind.range right: (_) @bind.value)
(for_statement left: (pattern_list (identifier) @bind.local))
(for_statement left: (tuple_pattern (identifier) @bind.local))
(with_item value: (as_pattern (_) @bind.value alias: (as_pattern_target (identifier) @bind.with)))
(function_definition return_type: (type) @bind.returns) @bind.owner
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
    const names = splitList(from[2]).map(([name]) => name);
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

/** The Python language spec for the shared query engine. */
export const pythonSpec: QueryLanguageSpec = {
  language: 'python',
  query: PYTHON_QUERY,
  docs: 'docstring',
  builtinTypes: BUILTIN_TYPES,
  parseImport: parsePythonImport,
  isExported: isPythonExported,
};
