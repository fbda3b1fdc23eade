/**
 * The binding half of extraction: names bound in scopes (locals, parameters, fields, loop and
 * `with` targets) and declared return types, from a query's `@bind.*` captures (see
 * query-extractor.ts), resolved to their scopes once the file's declarations are nested.
 */
import type { Node, QueryCapture } from 'web-tree-sitter';
import { RETURN_BINDING, type ExtractedBinding, type ExtractedSymbol } from '../extraction.ts';
import { typeText, valueText } from './binding-text.ts';
import { enclosing, type Entry } from './nesting.ts';

interface PendingBinding {
  pos: number;
  row: number;
  name: string;
  source: ExtractedBinding['source'];
  /** `self.x` / `this.x`: the binding belongs to the class of the enclosing method. */
  ofSelf: boolean;
  type?: string;
  value?: string;
  /** Last row of the closure the name is bound in, if any. */
  endRow?: number;
}

/** Declarations that end the search for an enclosing closure. */
const SCOPE_ENDS = new Set([
  'function_declaration', 'method_declaration', 'function_definition', 'method_definition', 'function_item',
  'constructor_declaration', 'class_declaration', 'class_definition', 'class_body', 'impl_item', 'source_file', 'program', 'module',
]);

/** Python builtins whose result holds the elements of their one argument (`list(reversed(children))`). */
const PY_ELEMENT_KEEPING = new Set(['list', 'tuple', 'sorted', 'reversed', 'iter', 'set', 'frozenset']);

/** Python builtins that make an empty container when called with no argument (`x or list()`). */
const PY_EMPTY_CALLS = new Set(['list', 'tuple', 'set', 'frozenset', 'dict']);

/**
 * The expression whose elements a Python value holds: the argument of `list(x)`, `sorted(x)`,
 * `reversed(x)`… (nested), so the resolver sees `x`'s element type in `for c in self.children`; the
 * side that is not an empty default in `x or []` and `[] if x is None else list(x)`; the node itself
 * otherwise. (`call`, `boolean_operator` and `conditional_expression` are Python's node types; other
 * grammars name theirs differently.)
 */
function elementKeeping(node: Node): Node {
  for (let depth = 0; depth < 6; depth++) {
    if (node.type === 'boolean_operator' || node.type === 'conditional_expression') {
      // `A or B`; `A if cond else B` (children A, cond, B).
      const or = node.type === 'boolean_operator';
      if (or && node.childForFieldName('operator')?.type !== 'or') break;
      const [a, b] = or ? [node.childForFieldName('left'), node.childForFieldName('right')] : [node.namedChildren[0], node.namedChildren[2]];
      if (!a || !b || (!emptyDefault(a) && !emptyDefault(b))) break;
      node = emptyDefault(b) ? a : b;
      continue;
    }
    if (node.type !== 'call') break;
    const fn = node.childForFieldName('function');
    const args = node.childForFieldName('arguments');
    if (fn?.type !== 'identifier' || !PY_ELEMENT_KEEPING.has(fn.text) || args?.type !== 'argument_list') break;
    // One positional argument; keywords (`sorted(xs, key=…, reverse=True)`) do not change the elements.
    const [arg, ...rest] = args.namedChildren;
    if (!arg || arg.type === 'keyword_argument' || arg.type === 'list_splat' || arg.type === 'dictionary_splat' || arg.type === 'generator_expression') break;
    if (rest.some((r) => r?.type !== 'keyword_argument' && r?.type !== 'comment')) break;
    node = arg;
  }
  return node;
}

/** A PEP 484 type comment: `# type: T` (`# type: ignore[…]` is none). */
const TYPE_COMMENT = /^#\s*type:\s*(?!ignore\b)(\S[^#]*?)\s*(?:#.*)?$/;

/**
 * A PEP 484 type comment on an assignment's line (`self.fields = {}  # type: dict[str, Field]`):
 * the comment right after the statement holding the target, on the row it ends on.
 */
function typeComment(target: Node): string | undefined {
  let stmt: Node | null = target.parent;
  for (let k = 0; k < 3 && stmt && stmt.type !== 'expression_statement'; k++) stmt = stmt.parent;
  if (stmt?.type !== 'expression_statement') return undefined;
  const next = stmt.nextSibling;
  if (next?.type !== 'comment' || next.startPosition.row !== stmt.endPosition.row) return undefined;
  const m = TYPE_COMMENT.exec(next.text);
  return m ? typeText(m[1]) || undefined : undefined;
}

/** Modules a Python `cast` is called through (`typing.cast`, `import typing as t; t.cast`). */
const CAST_MODULES: ReadonlySet<string> = new Set(['typing', 't', 'typ', 'typing_extensions', 'te']);

/**
 * The type a Python `cast(T, x)` (`typing.cast`, `t.cast("T", x)`) asserts, as written (quotes
 * dropped); undefined for any other node.
 */
function castType(node: Node): string | undefined {
  if (node.type !== 'call') return undefined;
  const fn = node.childForFieldName('function');
  const isCast =
    fn?.type === 'identifier'
      ? fn.text === 'cast'
      : fn?.type === 'attribute' && fn.childForFieldName('attribute')?.text === 'cast' && CAST_MODULES.has(fn.childForFieldName('object')?.text ?? '');
  if (!isCast) return undefined;
  const first = node.childForFieldName('arguments')?.namedChildren[0];
  if (!first || first.type === 'keyword_argument') return undefined;
  return typeText(first.text.replace(/^(['"])([^]*)\1$/, '$2')) || undefined;
}

/** A Python empty default: `None`, `[]`, `{}`, `()`, `list()`, `dict()`, …. */
function emptyDefault(node: Node): boolean {
  if (node.type === 'none') return true;
  if (node.type === 'list' || node.type === 'dictionary' || node.type === 'tuple') return node.namedChildCount === 0;
  if (node.type !== 'call') return false;
  const fn = node.childForFieldName('function');
  return fn?.type === 'identifier' && PY_EMPTY_CALLS.has(fn.text) && node.childForFieldName('arguments')?.namedChildCount === 0;
}

/** Last row of the closure (a node of one of `closures`) enclosing a node below the nearest declaration, or undefined. */
function closureEndRow(node: Node, closures: ReadonlySet<string>): number | undefined {
  let p = node.parent;
  for (let depth = 0; p !== null && depth < 16; depth++, p = p.parent) {
    if (closures.has(p.type)) return p.endPosition.row;
    if (SCOPE_ENDS.has(p.type)) return undefined;
  }
  return undefined;
}

const BIND_SOURCES: Record<string, ExtractedBinding['source']> = {
  'bind.local': 'assign',
  'bind.param': 'param',
  'bind.field': 'field',
  'bind.selffield': 'field',
  'bind.with': 'with',
  'bind.range': 'range',
  'bind.tparam': 'tparam',
  'bind.narrow': 'assign',
  'bind.unpack': 'assign',
  'bind.selfunpack': 'field',
  'bind.alias': 'alias',
};

/** `a, b = v` / `self.a, self.b = v`: the position of a target among the unpacked names, or -1. */
function unpackIndex(node: Node): number {
  const target = node.parent?.type === 'attribute' ? node.parent : node;
  const list = target.parent;
  if (!list || (list.type !== 'pattern_list' && list.type !== 'tuple_pattern')) return -1;
  return list.namedChildren.findIndex((c) => c?.id === target.id);
}

/** Collects one file's bindings and return types. */
export class BindingCollector {
  private readonly pending: PendingBinding[] = [];
  /** Declaration start offset → declared result type. */
  readonly returnTypes = new Map<number, string>();

  constructor(
    private readonly closures: ReadonlySet<string> | undefined,
    private readonly text: (node: Node) => string,
    private readonly ident: (node: Node) => string,
    /** The file holds a `# type:` comment somewhere (PEP 484 type comments are looked for only then). */
    private readonly typeComments = false,
  ) {}

  /** A type as written, or a tuple of them as their union (`isinstance(x, (A, B))`: one of the classes). */
  private classesText(node: Node): string {
    return node.type === 'tuple' ? node.namedChildren.map((t) => typeText(this.text(t!))).join(' | ') : typeText(this.text(node));
  }

  /** Number of bindings taken so far. */
  get size(): number {
    return this.pending.length;
  }

  /** Takes the captures of one `bind` match. */
  take(captures: QueryCapture[]): void {
    let type: string | undefined;
    let value: string | undefined;
    let owner = -1;
    let returns: string | undefined;
    /**
     * Last row of the block a narrowing holds in: the `if isinstance(x, Foo):` block, or the block
     * holding an `if not isinstance(x, Foo): raise` guard (after it); none after an `assert isinstance`.
     */
    let blockEnd: number | undefined;
    /** The name a parameter's default reads (`field=field`), when the default is a bare name. */
    let captured: string | undefined;
    /** The type a `cast(T, x)` value asserts (an annotation, when there is one, wins). */
    let cast: string | undefined;
    /** The row a comprehension's targets are bound at: the one before the comprehension. */
    let fromRow: number | undefined;
    const names: { node: Node; source: ExtractedBinding['source']; ofSelf: boolean; unpack: boolean }[] = [];
    for (const c of captures) {
      switch (c.name) {
        case 'bind.type':
          type = this.classesText(c.node) || undefined;
          break;
        case 'bind.classtype': {
          // `issubclass(c, Foo)`: `c` is the class itself (`type[Foo]`; of a tuple, `type[A | B]`).
          const t = this.classesText(c.node);
          type = t ? `type[${t}]` : undefined;
          break;
        }
        case 'bind.elementtype': {
          // Java `Foo... names`: the parameter holds an array of the type written.
          const t = typeText(this.text(c.node));
          type = t ? `${t}[]` : undefined;
          break;
        }
        case 'bind.default':
          // `def getter(val, field=field)`: the default captures the enclosing scope's `field` (below).
          if (c.node.type === 'identifier') captured = c.node.text;
          break;
        case 'bind.block':
          blockEnd = c.node.endPosition.row;
          break;
        case 'bind.comprehension': {
          // A comprehension's clause: its targets are seen in the comprehension only, from its first line
          // (the element before the clause reads them).
          const comprehension = c.node.parent ?? c.node;
          blockEnd = comprehension.endPosition.row;
          fromRow = comprehension.startPosition.row - 1;
          break;
        }
        case 'bind.value':
          // `x = cast(Foo, y)`: `x` is what the cast asserts.
          cast = castType(c.node);
          if (cast === undefined) value = valueText(this.text(elementKeeping(c.node))) || undefined;
          break;
        case 'bind.mapvalues': {
          // `for k, v in d.items()`: `v` ranges over `d`'s values.
          const of = valueText(this.text(c.node));
          value = of ? `${of}.values()` : undefined;
          break;
        }
        case 'bind.owner':
          owner = c.node.startIndex;
          break;
        case 'bind.returns':
          returns = typeText(this.text(c.node)) || undefined;
          break;
        case 'bind.retval': {
          // `return x`: what an unannotated function gives, read as a binding named RETURN_BINDING in its scope.
          // `return cast(Foo, x)`: typed by the cast.
          const returned = castType(c.node);
          const pending = { pos: c.node.startIndex, row: c.node.startPosition.row, name: RETURN_BINDING, source: 'assign' as const, ofSelf: false };
          if (returned !== undefined) {
            this.pending.push({ ...pending, type: returned });
            break;
          }
          const v = valueText(this.text(elementKeeping(c.node)));
          if (v && v !== 'None') this.pending.push({ ...pending, value: v });
          break;
        }
        default: {
          const source = BIND_SOURCES[c.name];
          if (source !== undefined) names.push({ node: c.node, source, ofSelf: c.name === 'bind.selffield' || c.name === 'bind.selfunpack', unpack: c.name === 'bind.unpack' || c.name === 'bind.selfunpack' });
        }
      }
    }
    if (owner >= 0 && returns !== undefined) this.returnTypes.set(owner, returns);
    if (type === undefined && cast !== undefined) type = cast;
    for (const n of names) {
      const name = this.ident(n.node);
      // `self`/`this` receivers are resolved to the enclosing class without a binding.
      // (A typed one is kept: `def make(cls: type[Foo])` outside a class.)
      if (name === '' || name === '_' || (n.source === 'param' && (name === 'self' || name === 'cls') && type === undefined)) continue;
      // `field=field` (a closure pinning a loop variable): the name keeps the enclosing scope's value, so no binding shadows it.
      if (n.source === 'param' && captured === name && type === undefined) continue;
      const b: PendingBinding = { pos: n.node.startIndex, row: fromRow ?? n.node.startPosition.row, name, source: n.source, ofSelf: n.ofSelf };
      const closures = this.closures;
      // A narrowing (`if isinstance(x, Foo):`) holds in its block only; a closure's names in the closure.
      const endRow = blockEnd !== undefined ? blockEnd : n.ofSelf || closures === undefined ? undefined : closureEndRow(n.node, closures);
      if (endRow !== undefined) b.endRow = endRow;
      if (type !== undefined) b.type = type;
      else if (this.typeComments && value !== undefined && (n.source === 'assign' || n.source === 'field')) {
        const commented = typeComment(n.node);
        if (commented !== undefined) b.type = commented;
      }
      if (value !== undefined) {
        // An unpacking target takes the value's item at its position (`[#k]`, read by the receiver rules).
        const k = n.unpack ? unpackIndex(n.node) : -1;
        if (!n.unpack) b.value = value;
        else if (k >= 0) b.value = `${value}[#${k}]`;
      }
      this.pending.push(b);
    }
  }

  /** Bindings in source order with their scope; one per (scope, name, line), type and value merged. */
  finish(symbols: readonly ExtractedSymbol[], entries: readonly Entry[]): ExtractedBinding[] {
    const bindings = this.pending;
    sortByPos(bindings);
    const parentOf = new Map<string, string | undefined>();
    // A class whose own body binds `this.x` (a JavaScript constructor function): the field is its own.
    const classes = new Set<string>();
    for (const s of symbols) {
      parentOf.set(s.qualifiedName, s.parent);
      if (s.kind === 'class') classes.add(s.qualifiedName);
    }
    const at = enclosing(entries);
    const byKey = new Map<string, ExtractedBinding>();
    const out: ExtractedBinding[] = [];
    const symbolLines = new Map<string, number>();
    for (const s of symbols) symbolLines.set(s.qualifiedName, s.startLine);
    const paramTypes = new Map<string, string>();
    // Last value assigned to a local, per scope and name, that does not read the name itself.
    const localValues = new Map<string, string>();
    for (const b of bindings) {
      let scope = at(b.pos);
      // `const f = () => ...` is the symbol `f` itself, not a binding inside it.
      if (scope !== null && (scope === b.name || scope.endsWith(`.${b.name}`)) && symbolLines.get(scope) === b.row + 1) continue;
      if (b.source === 'param' && b.type !== undefined) paramTypes.set(`${scope}\0${b.name}`, b.type);
      // `self.x = x` with a typed parameter `x`: the field takes the parameter's type.
      // `self.x = x` after `x = Foo(x)`: the field takes the local's last value (read in the class, where `Foo` resolves).
      if (b.ofSelf && b.type === undefined && b.value !== undefined) {
        const local = localValues.get(`${scope}\0${b.value}`);
        if (local !== undefined) b.value = local;
        else b.type = paramTypes.get(`${scope}\0${b.value}`);
      }
      if (!b.ofSelf && b.source === 'assign' && b.value !== undefined && !readsItself(b.name, b.value)) {
        localValues.set(`${scope}\0${b.name}`, b.value);
      }
      if (b.ofSelf) {
        // `self.x = ...` in a method: a field of the method's class.
        scope = scope === null || classes.has(scope) ? scope : (parentOf.get(scope) ?? null);
        if (scope === null) continue;
      }
      const line = b.row + 1;
      // Bindings seen over different lines (a comprehension's target beside a parameter of that name) stay apart.
      const key = `${scope}\0${b.name}\0${line}\0${b.endRow ?? ''}`;
      const prev = byKey.get(key);
      if (prev !== undefined) {
        prev.type ??= b.type;
        prev.value ??= b.value;
        if (b.source === 'range' || b.source === 'alias') prev.source = b.source;
        // `X: TypeAlias = "type[A | B]"`: the alias stands for its value, not for `TypeAlias`.
        if (b.source === 'alias' && b.type !== undefined) prev.type = b.type;
        continue;
      }
      const binding: ExtractedBinding = { scope, name: b.name, line, source: b.source };
      if (b.endRow !== undefined) binding.endLine = b.endRow + 1;
      if (b.type !== undefined) binding.type = b.type;
      if (b.value !== undefined) binding.value = b.value;
      byKey.set(key, binding);
      out.push(binding);
    }
    return out;
  }
}

/** True when a value starts with the name it is assigned to (`url = url.copy_with()`). */
function readsItself(name: string, value: string): boolean {
  return value.startsWith(name) && !/[\w$]/.test(value.charAt(name.length));
}

function sortByPos(items: { pos: number }[]): void {
  for (let i = 1; i < items.length; i++) {
    if (items[i - 1].pos > items[i].pos) {
      items.sort((a, b) => a.pos - b.pos);
      return;
    }
  }
}
