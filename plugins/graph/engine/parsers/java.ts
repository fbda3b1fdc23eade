/**
 * Java extraction (tree-sitter-java from @vscode/tree-sitter-wasm 0.3.1).
 * - Classes are `class`; interfaces and annotation types `interface`; enums and records `type`;
 *   constructors are methods named like their class (`A.A`).
 * - `import a.b.C;` → specifier `a.b.C`, names [C]; `import a.b.*;` → `a.b`, ['*'];
 *   `import static a.b.C.m;` → `a.b.C`, [m]; `import static a.b.C.*;` → `a.b.C`, ['*'].
 * - `new Foo()` counts as a call to `Foo`; `this(…)`/`super(…)` in a constructor are calls to `this`/`super`.
 * - Methods and constructors carry their parameter types, calls their argument shapes (overloads).
 * - Only Javadoc (`/** ... *\/`) is read as doc.
 * - In a qualified type `java.io.Closeable` only the last name (`Closeable`) is a reference.
 */
import type { ExtractedImport } from '../extraction.ts';
import { javaArgs, javaParams, javaWithin } from './java-arity.ts';
import type { ExportFacts, QueryLanguageSpec } from './query-spec.ts';

/** The Java query. */
export const JAVA_QUERY = String.raw`
(class_declaration name: (identifier) @def.name) @def.class
(interface_declaration name: (identifier) @def.name) @def.interface
(annotation_type_declaration name: (identifier) @def.name) @def.interface
(enum_declaration name: (identifier) @def.name) @def.type
(record_declaration name: (identifier) @def.name) @def.type
(method_declaration name: (identifier) @def.name) @def.function
(constructor_declaration name: (identifier) @def.name) @def.function
(compact_constructor_declaration name: (identifier) @def.name) @def.function

(import_declaration) @import.stmt

(method_invocation object: (_) @call.recv name: (identifier) @call.name)
(method_invocation !object name: (identifier) @call.name)
(explicit_constructor_invocation constructor: [(this) (super)] @call.name)
(object_creation_expression type: [
  (type_identifier) @call.name
  (generic_type . (type_identifier) @call.name)
  (scoped_type_identifier (type_identifier) @call.name .)
  (generic_type . (scoped_type_identifier (type_identifier) @call.name .))])

(class_declaration superclass: (superclass (_) @inherit.extends)) @inherit.owner
(class_declaration interfaces: (super_interfaces (type_list (_) @inherit.implements))) @inherit.owner
(enum_declaration interfaces: (super_interfaces (type_list (_) @inherit.implements))) @inherit.owner
(record_declaration interfaces: (super_interfaces (type_list (_) @inherit.implements))) @inherit.owner
(interface_declaration (extends_interfaces (type_list (_) @inherit.extends))) @inherit.owner

(type_identifier) @ref.name
(type_parameter . (type_identifier) @ref.tparam)
(scoped_type_identifier . (type_identifier) @ref.skip)
(scoped_type_identifier (scoped_type_identifier (type_identifier) @ref.skip .))

[
  (class_declaration (modifiers "public"))
  (interface_declaration (modifiers "public"))
  (annotation_type_declaration (modifiers "public"))
  (enum_declaration (modifiers "public"))
  (record_declaration (modifiers "public"))
  (method_declaration (modifiers "public"))
  (constructor_declaration (modifiers "public"))
  (compact_constructor_declaration (modifiers "public"))
] @export.public
[
  (method_declaration (modifiers "private"))
  (constructor_declaration (modifiers "private"))
] @export.private

(local_variable_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.local))
(local_variable_declaration declarator: (variable_declarator name: (identifier) @bind.local value: (_) @bind.value))
(formal_parameter type: (_) @bind.type name: (identifier) @bind.param)
(spread_parameter (variable_declarator name: (identifier) @bind.param))
(spread_parameter [(type_identifier) (generic_type) (scoped_type_identifier) (integral_type) (floating_point_type) (boolean_type) (array_type)] @bind.elementtype (variable_declarator name: (identifier) @bind.param))
(catch_formal_parameter name: (identifier) @bind.param)
(field_declaration type: (_) @bind.type declarator: (variable_declarator name: (identifier) @bind.field))
(enhanced_for_statement type: (_) @bind.type name: (identifier) @bind.local)
(resource type: (_) @bind.type name: (identifier) @bind.local)
(type_parameter (type_identifier) @bind.tparam (type_bound . (_) @bind.type))
(resource name: (identifier) @bind.local value: (_) @bind.value)
(method_declaration type: (_) @bind.returns) @bind.owner

[(line_comment) (block_comment)] @comment
`;

// Primitives are their own node types; these java.lang names are never user types.
const BUILTIN_TYPES: ReadonlySet<string> = new Set([
  'var', 'String', 'Object', 'Integer', 'Long', 'Short', 'Byte', 'Character', 'Boolean', 'Double', 'Float', 'Void',
  'Number', 'CharSequence', 'Class',
]);

const IMPORT = /^import\s+(static\s+)?([\p{ID_Continue}$.]+?)(\.\*)?;$/u;

/** Parses `import [static] a.b.C[.*];`. */
export function parseJavaImport(statement: string, line: number, out: ExtractedImport[]): void {
  const text = statement.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '').replace(/\s+/g, ' ');
  const m = IMPORT.exec(text.replace(/\s*([.;*])\s*/g, '$1').trim());
  if (m === null) return;
  const path = m[2];
  if (m[3] !== undefined) {
    out.push({ specifier: path, line, names: ['*'] });
    return;
  }
  const cut = path.lastIndexOf('.');
  const name = path.slice(cut + 1);
  // A static import names a member of a class: the class is what a resolver can find.
  if (m[1] !== undefined && cut !== -1) out.push({ specifier: path.slice(0, cut), line, names: [name] });
  else out.push({ specifier: path, line, names: [name] });
}

/** Java visibility: `public`, or any member of a public interface (implicitly public). */
export function isJavaExported(facts: ExportFacts): boolean {
  if (facts.marked) return true;
  const parent = facts.parent;
  return parent !== undefined && parent.kind === 'interface' && parent.exported;
}

/** The Java language spec for the shared query engine. */
export const javaSpec: QueryLanguageSpec = {
  language: 'java',
  query: JAVA_QUERY,
  docs: { accept: (text) => text.startsWith('/**') },
  builtinTypes: BUILTIN_TYPES,
  parseImport: parseJavaImport,
  isExported: isJavaExported,
  closureTypes: new Set(['lambda_expression']),
  params: javaParams,
  args: javaArgs,
  within: javaWithin,
};
