/**
 * Java overload facts read from the tree: the declared parameter types of a method or constructor,
 * and the shape of each argument of a call, so the resolver can pick among overloads by arity and
 * simple static argument types.
 */
import type { Node } from 'web-tree-sitter';

const CALLS: ReadonlySet<string> = new Set(['method_invocation', 'object_creation_expression', 'explicit_constructor_invocation']);
const EXPRESSIONS: ReadonlySet<string> = new Set(['this', 'field_access', 'method_invocation', 'array_access']);
const COMMENTS: ReadonlySet<string> = new Set(['line_comment', 'block_comment']);

/** Literal node types → their Java static type. */
const LITERAL_TYPES: Readonly<Record<string, string>> = {
  string_literal: 'String',
  text_block: 'String',
  character_literal: 'char',
  true: 'boolean',
  false: 'boolean',
  decimal_floating_point_literal: 'double',
  hex_floating_point_literal: 'double',
};
const INTEGER_LITERALS: ReadonlySet<string> = new Set(['decimal_integer_literal', 'hex_integer_literal', 'octal_integer_literal', 'binary_integer_literal']);

/** Declared parameter types of a method/constructor declaration, whitespace folded; a varargs one ends in `...`. */
export function javaParams(decl: Node, text: (n: Node) => string): string[] | undefined {
  if (decl.type !== 'method_declaration' && decl.type !== 'constructor_declaration') return undefined;
  const list = decl.childForFieldName('parameters');
  if (!list) return undefined;
  const out: string[] = [];
  for (const p of list.namedChildren) {
    if (!p) continue;
    if (p.type === 'formal_parameter') {
      const t = p.childForFieldName('type');
      out.push(t ? fold(text(t)) : '');
    } else if (p.type === 'spread_parameter') {
      // `String... names`: the type is the first named child that is not a modifier.
      const t = p.namedChildren.find((c) => c !== null && c.type !== 'modifiers' && c.type !== 'variable_declarator');
      out.push(`${t ? fold(text(t)) : ''}...`);
    }
  }
  return out;
}

/**
 * One entry per argument of the call whose name node is given: `:T` when its static type is plain
 * (a literal, `new T(…)`, a cast), the text of a plain name, `this`, a field access or a method call (typed
 * later like a receiver), '' otherwise.
 */
export function javaArgs(nameNode: Node, text: (n: Node) => string): string[] | undefined {
  // The name sits in the call, or in the type of a `new` (`new a.Foo<T>(…)`).
  let call = nameNode.parent;
  for (let up = 0; call && !CALLS.has(call.type) && up < 3; up++) call = call.parent;
  if (!call || !CALLS.has(call.type)) return undefined;
  const list = call.childForFieldName('arguments');
  if (!list) return undefined;
  const out: string[] = [];
  for (const a of list.namedChildren) if (a && !COMMENTS.has(a.type)) out.push(argShape(a, text));
  return out;
}

function argShape(a: Node, text: (n: Node) => string): string {
  if (a.type === 'decimal_floating_point_literal' && /[fF]$/.test(text(a))) return ':float';
  const lit = LITERAL_TYPES[a.type];
  if (lit) return `:${lit}`;
  if (INTEGER_LITERALS.has(a.type)) return /[lL]$/.test(text(a)) ? ':long' : ':int';
  if (a.type === 'identifier') return text(a);
  if (a.type === 'class_literal') return ':Class'; // `LocalDate.class`
  // A lambda or a method reference: only a functional interface can take it (resolve-overloads.ts FUNCTIONAL_ARG).
  if (a.type === 'lambda_expression' || a.type === 'method_reference') return ':->';
  // `this`, `this.state`, `state()`, `x.y()`, `xs[i]`: typed at resolution from bindings, fields and return types.
  if (EXPRESSIONS.has(a.type)) {
    const t = fold(text(a));
    return t.length <= 80 && !t.startsWith(':') ? t : '';
  }
  if (a.type === 'object_creation_expression' || a.type === 'cast_expression') {
    const t = a.childForFieldName('type');
    return t ? `:${baseType(text(t))}` : '';
  }
  if (a.type === 'parenthesized_expression' && a.namedChildren.length === 1 && a.namedChildren[0]) return argShape(a.namedChildren[0], text);
  // `v == null ? null : v.toString()`: the branch that is not `null` (both alike, else unknown).
  if (a.type === 'ternary_expression') {
    const yes = a.childForFieldName('consequence');
    const no = a.childForFieldName('alternative');
    if (!yes || !no) return '';
    if (yes.type === 'null_literal') return argShape(no, text);
    if (no.type === 'null_literal') return argShape(yes, text);
    const [x, y] = [argShape(yes, text), argShape(no, text)];
    return x === y ? x : '';
  }
  return '';
}

/**
 * The type an anonymous class body around a call (by its name node) extends or implements:
 * `new LinkedTreeMapIterator<Entry<K, V>>() { … nextNode() … }` → `LinkedTreeMapIterator`. Undefined
 * inside a named class or an enum constant's body first, or when the call is the creation itself.
 */
export function javaWithin(nameNode: Node, text: (n: Node) => string): string | undefined {
  let p = nameNode.parent;
  for (let up = 0; p && up < 64; up++, p = p.parent) {
    if (p.type !== 'class_body') continue;
    const owner = p.parent;
    if (owner?.type !== 'object_creation_expression') return undefined;
    const t = owner.childForFieldName('type');
    return t ? baseType(text(t)) : undefined;
  }
  return undefined;
}

/** `java.util.List<String>` → `List`; `int[]` stays `int[]`. */
export function baseType(type: string): string {
  const noArgs = fold(type).replace(/<.*>/, '');
  return noArgs.slice(noArgs.lastIndexOf('.') + 1);
}

function fold(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
