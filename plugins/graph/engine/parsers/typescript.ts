/**
 * TypeScript, TSX and JavaScript extraction (tree-sitter-typescript / -tsx / -javascript from
 * @vscode/tree-sitter-wasm 0.3.1). TS and TSX share one query; JavaScript names a few nodes differently.
 * Functions assigned to `const`/`let`/`var` and class fields holding arrow functions count as functions
 * and methods. JSX elements with a capitalised name count as calls to that component. `f.call(…)`,
 * `f.apply(…)` and `this.m.bind(this)` count as calls of `f` / `m` (a bound method is how it is called).
 * A default import is the name 'default'; `import * as ns` is names ['*'] with alias 'ns'.
 */
import type { ExtractedImport, Language } from '../extraction.ts';
import type { ExportFacts, QueryLanguageSpec } from './query-spec.ts';
import { repairTypeScript } from './ts-repair.ts';
import { extractWithTypeScript } from './ts-fallback.ts';
import { mergeTsOverloads } from './ts-overloads.ts';

const SHARED_QUERY = String.raw`
(function_declaration name: (identifier) @def.name) @def.function
(generator_function_declaration name: (identifier) @def.name) @def.function
(method_definition name: (_) @def.name) @def.function
(lexical_declaration (variable_declarator name: (identifier) @def.name value: [(arrow_function) (function_expression)])) @def.function
(variable_declaration (variable_declarator name: (identifier) @def.name value: [(arrow_function) (function_expression)])) @def.function

(import_statement) @import.stmt
(export_statement source: (_)) @import.stmt
(call_expression function: (identifier) @_require arguments: (arguments . (string (string_fragment) @import.spec)) (#eq? @_require "require"))
(variable_declarator
  name: [(identifier) (object_pattern)]
  value: [
    (call_expression function: (identifier) @_require arguments: (arguments . (string)))
    (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string))) property: (property_identifier))]
  (#eq? @_require "require")) @import.stmt
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @import.spec)))

(call_expression function: (identifier) @call.name)
(call_expression function: (member_expression object: (_) @call.recv property: (_) @call.name))
(call_expression function: (member_expression object: (member_expression object: (_) @call.recv property: (_) @call.name) property: (property_identifier) @_invoke (#match? @_invoke "^(call|apply|bind)$")))
(call_expression function: (member_expression object: (identifier) @call.name property: (property_identifier) @_invoke (#match? @_invoke "^(call|apply|bind)$")))
(new_expression constructor: (identifier) @call.name)
(new_expression constructor: (member_expression object: (_) @call.recv property: (_) @call.name))

(export_statement declaration: (_) @export.decl) @export.stmt
(export_statement (export_clause (export_specifier name: (_) @export.name)) !source)
(export_statement value: (identifier) @export.name)

(variable_declarator name: (identifier) @bind.local value: (_) @bind.value)
(variable_declarator name: (identifier) @bind.local)
(for_in_statement left: (identifier) @bind.range right: (_) @bind.value)
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @bind.selffield) right: (_) @bind.value)

(comment) @comment
`;

// Only the TSX and JavaScript grammars know JSX.
const JSX_QUERY = String.raw`
(jsx_opening_element name: (identifier) @call.name (#match? @call.name "^[A-Z]"))
(jsx_self_closing_element name: (identifier) @call.name (#match? @call.name "^[A-Z]"))
(jsx_opening_element name: (member_expression object: (_) @call.recv property: (_) @call.name))
(jsx_self_closing_element name: (member_expression object: (_) @call.recv property: (_) @call.name))
`;

/** The TypeScript query (TSX adds the JSX patterns). */
export const TYPESCRIPT_QUERY =
  SHARED_QUERY +
  String.raw`
(class_declaration name: (type_identifier) @def.name) @def.class
(abstract_class_declaration name: (type_identifier) @def.name) @def.class
(interface_declaration name: (type_identifier) @def.name) @def.interface
(type_alias_declaration name: (type_identifier) @def.name) @def.type
(enum_declaration name: (identifier) @def.name) @def.type
(function_signature name: (identifier) @def.name) @def.function
(method_signature name: (_) @def.name) @def.function
(abstract_method_signature name: (_) @def.name) @def.function
(public_field_definition name: (_) @def.name value: [(arrow_function) (function_expression)]) @def.function
(internal_module name: (_) @def.name) @def.scope

(class_declaration (class_heritage (extends_clause value: (_) @inherit.extends))) @inherit.owner
(abstract_class_declaration (class_heritage (extends_clause value: (_) @inherit.extends))) @inherit.owner
(class_declaration (class_heritage (implements_clause (_) @inherit.implements))) @inherit.owner
(abstract_class_declaration (class_heritage (implements_clause (_) @inherit.implements))) @inherit.owner
(interface_declaration (extends_type_clause type: (_) @inherit.extends)) @inherit.owner

(type_identifier) @ref.name
(type_parameter name: (type_identifier) @ref.tparam)

(variable_declarator name: (identifier) @bind.local type: (type_annotation (_) @bind.type))
(required_parameter pattern: (identifier) @bind.param type: (type_annotation (_) @bind.type))
(required_parameter pattern: (identifier) @bind.param)
(optional_parameter pattern: (identifier) @bind.param type: (type_annotation (_) @bind.type))
(optional_parameter pattern: (identifier) @bind.param)
(public_field_definition name: (property_identifier) @bind.field type: (type_annotation (_) @bind.type))
(public_field_definition name: (property_identifier) @bind.field value: (_) @bind.value)
(method_definition return_type: (type_annotation (_) @bind.returns)) @bind.owner
(function_declaration return_type: (type_annotation (_) @bind.returns)) @bind.owner

(ambient_declaration (_) @export.inner) @export.outer
(method_definition (accessibility_modifier "private")) @export.private
(method_signature (accessibility_modifier "private")) @export.private
(public_field_definition (accessibility_modifier "private")) @export.private
`;

/** The JavaScript (and JSX) query. */
export const JAVASCRIPT_QUERY =
  SHARED_QUERY +
  JSX_QUERY +
  String.raw`
(class_declaration name: (identifier) @def.name) @def.class
(field_definition property: (_) @def.name value: [(arrow_function) (function_expression)]) @def.function

(class_declaration (class_heritage (_) @inherit.extends)) @inherit.owner

(assignment_expression
  left: (member_expression
    object: (member_expression object: (identifier) @def.recv property: (property_identifier) @_proto (#eq? @_proto "prototype"))
    property: (property_identifier) @def.name)
  right: [(function_expression) (arrow_function)]) @def.method
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @def.recv property: (property_identifier) @def.name)
  right: [(function_expression) (arrow_function)]) @def.function (#not-match? @def.recv "^(exports|module)$")))
(assignment_expression
  left: (member_expression object: (identifier) @def.recv property: (property_identifier) @_proto (#eq? @_proto "prototype"))
  right: (object [
    (pair key: (property_identifier) @def.name value: [(function_expression) (arrow_function)])
    (method_definition name: (property_identifier) @def.name)] @def.method))
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object (pair key: (property_identifier) @def.name value: [(function_expression) (arrow_function)]) @def.function))
  (#eq? @_module "module") (#eq? @_exports "exports")))
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: (object [(pair value: [(function_expression) (arrow_function)]) (method_definition)] @export.decl))
  (#eq? @_module "module") (#eq? @_exports "exports")))
(program (expression_statement (assignment_expression right: (assignment_expression
  left: (member_expression object: (identifier) @def.recv property: (property_identifier) @def.name)
  right: [(function_expression) (arrow_function)]) @def.function (#not-match? @def.recv "^(exports|module)$"))))
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports property: (property_identifier) @def.name)
  right: [(function_expression) (arrow_function)]) @def.function (#eq? @_exports "exports")))
(program (expression_statement (assignment_expression
  left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @def.name)
  right: [(function_expression) (arrow_function)]) @def.function (#eq? @_module "module") (#eq? @_exports "exports")))
(program (expression_statement (assignment_expression
  left: (member_expression object: (identifier) @_exports)
  right: [(function_expression) (arrow_function)]) @export.decl (#eq? @_exports "exports")))
(program (expression_statement (assignment_expression
  left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports))
  right: [(function_expression) (arrow_function)]) @export.decl (#eq? @_module "module") (#eq? @_exports "exports")))

(assignment_expression
  left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports)
  right: [(identifier) @export.name (object (shorthand_property_identifier) @export.name)]
  (#eq? @_module "module") (#eq? @_exports "exports"))
(formal_parameters (identifier) @bind.param)
(formal_parameters (assignment_pattern left: (identifier) @bind.param))
(field_definition property: (property_identifier) @bind.field value: (_) @bind.value)
`;

// ECMAScript and TypeScript library types: references to them never lead into the user's code.
const BUILTIN_TYPES: ReadonlySet<string> = new Set([
  'Array', 'ReadonlyArray', 'Promise', 'PromiseLike', 'Record', 'Partial', 'Required', 'Readonly', 'Pick', 'Omit',
  'Exclude', 'Extract', 'NonNullable', 'ReturnType', 'Parameters', 'InstanceType', 'Awaited', 'Map', 'Set',
  'WeakMap', 'WeakSet', 'ReadonlyMap', 'ReadonlySet', 'Date', 'Error', 'RegExp', 'Function', 'Object', 'String',
  'Number', 'Boolean', 'Symbol', 'BigInt', 'Iterable', 'Iterator', 'IterableIterator', 'AsyncIterable',
  'AsyncIterator', 'Generator', 'AsyncGenerator', 'ArrayBuffer', 'Uint8Array', 'JSON',
]);

// ECMAScript reserved words: legal member names, but in a file with parse errors a declaration named
// so is far likelier a statement misread as a method (`while (x) {` → method `while`).
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
  'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'let',
  'new', 'null', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void',
  'while', 'with', 'yield',
]);

const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//g;
const LINE_COMMENT = /\/\/[^\n]*/g;
const QUOTED = /(['"])((?:(?!\1)[^\\\n]|\\.)*)\1/;

/** `x = require('m')`, `{ a, b: c } = require('m')`, `f = require('m').f`: a CommonJS variable declarator. */
const REQUIRE_DECLARATOR = /^\s*([\w$]+|\{[^}]*\})\s*=\s*require\s*\(\s*(['"])((?:(?!\2)[^\\\n]|\\.)*)\2\s*\)\s*(?:\.\s*([\w$]+))?\s*$/;

/**
 * The names a CommonJS `require` binds, like an import's: the module under an alias, destructured
 * names, or one member copied (`var compile = require('./utils').compile`). Replaces the bare module
 * import the `require(…)` call itself gave on the same line when its match came first (a copied
 * member's declarator ends after the call; a plain one is matched first, and the call's then skipped).
 */
function parseRequire(m: RegExpExecArray, line: number, out: ExtractedImport[]): void {
  const [, target, , specifier, member] = m;
  const entry: ExtractedImport = { specifier, line, names: [] };
  if (member !== undefined) entry.names.push(target.startsWith('{') ? member : target === member ? member : `${member} as ${target}`);
  else if (!target.startsWith('{')) entry.alias = target;
  else {
    for (const part of target.slice(1, -1).split(',')) {
      const [name, local] = part.split(':').map((w) => w.trim());
      if (!/^[\w$]+$/.test(name ?? '')) continue;
      entry.names.push(local && /^[\w$]+$/.test(local) && local !== name ? `${name} as ${local}` : name);
    }
  }
  const bare = out.findIndex((i) => i.line === line && i.specifier === specifier && i.names.length === 0 && i.alias === undefined);
  if (bare >= 0) out.splice(bare, 1);
  out.push(entry);
}

/** Parses the text of an `import ...` or `export ... from` statement (or a CommonJS `x = require(…)` declarator). */
export function parseTsImport(statement: string, line: number, out: ExtractedImport[]): void {
  const declarator = REQUIRE_DECLARATOR.exec(statement);
  if (declarator !== null) return parseRequire(declarator, line, out);
  const text = statement.replace(BLOCK_COMMENT, ' ').replace(LINE_COMMENT, ' ');
  const from = /\bfrom\s*(['"])((?:(?!\1)[^\\\n]|\\.)*)\1/.exec(text);
  // `import 'x'` and `import x = require('x')` have no `from`: the first string is the module.
  const quoted = from ?? QUOTED.exec(text);
  if (quoted === null) return;
  const specifier = quoted[2];
  const typeKeyword = /^\s*(?:import|export)\s+type\s+(?=[{*\w])(?!from\b)/.test(text);
  const clause = text
    .slice(0, quoted.index)
    .replace(/^\s*(?:import|export)\s+/, '')
    .replace(/^type\s+(?=[{*\w])(?!from\b)/, '')
    .trim();
  const entry: ExtractedImport = { specifier, line, names: [] };
  const required = /^([\w$]+)\s*=\s*require\s*\($/.exec(clause);
  if (required !== null) {
    entry.alias = required[1];
  } else if (clause !== '') {
    const braces = /\{([^}]*)\}/.exec(clause);
    const outside = braces === null ? clause : clause.slice(0, braces.index) + clause.slice(braces.index + braces[0].length);
    for (const part of outside.split(',')) {
      const word = part.trim();
      if (word === '') continue;
      const star = /^\*(?:\s+as\s+([\w$]+))?$/.exec(word);
      if (star === null) {
        // A default import binds a local name: `default as React`.
        entry.names.push(/^[\w$]+$/.test(word) ? `default as ${word}` : 'default');
        continue;
      }
      entry.names.push('*');
      // `import * as ns` binds the module; `export * as ns` re-exports it under a name.
      if (star[1] !== undefined && /^\s*import\b/.test(text)) entry.alias = star[1];
    }
    if (braces !== null) {
      // `import { type A, type B } from` (and nothing else): types only, like `import type`.
      const parts = braces[1].split(',').filter((p) => p.trim() !== '');
      if (outside.trim() === '' && parts.length > 0 && parts.every((p) => /^\s*type\s+\S/.test(p))) entry.typeOnly = true;
      for (const part of braces[1].split(',')) {
        const words = part.trim().replace(/^type\s+(?=\S)/, '').split(/\s+/);
        const name = words[0].replace(/^(['"])(.*)\1$/, '$2');
        // `{ a as b }` keeps both names: `b` is what the file calls, `a` what the module declares.
        if (name !== '') entry.names.push(words[1] === 'as' && words[2] ? `${name} as ${words[2]}` : name);
      }
    }
  }
  if (typeKeyword) entry.typeOnly = true;
  out.push(entry);
}

/** TS/JS visibility: `export` (directly, in an `export { }` list, or through `export declare`); class and interface members follow their owner unless private. */
export function isTsExported(facts: ExportFacts): boolean {
  const parent = facts.parent;
  if (parent === undefined || parent.kind === 'scope') return facts.marked || facts.namedExport;
  if (parent.kind === 'class' || parent.kind === 'interface') return parent.exported && !facts.isPrivate;
  return false;
}

/** The spec of one of the three grammars this file covers. */
export function typescriptSpec(language: Extract<Language, 'typescript' | 'tsx' | 'javascript'>): QueryLanguageSpec {
  return {
    language,
    query: language === 'javascript' ? JAVASCRIPT_QUERY : language === 'tsx' ? TYPESCRIPT_QUERY + JSX_QUERY : TYPESCRIPT_QUERY,
    // Member decorators (`@Input()`) sit between a member's doc comment and its name.
    docs: { between: /^\s*@[\w$.]+(?:\(.*\))?\s*$/ },
    builtinTypes: BUILTIN_TYPES,
    parseImport: parseTsImport,
    isExported: isTsExported,
    repair: repairTypeScript,
    reservedWords: RESERVED_WORDS,
    closureTypes: new Set(['arrow_function', 'function_expression', 'function']),
    // Where tree-sitter stumbled, the TypeScript parser may not: then its symbols stand.
    finish: (ex, source) => mergeTsOverloads(ex.parseErrors > 0 ? (extractWithTypeScript(ex, source, parseTsImport) ?? ex) : ex, source),
  };
}
