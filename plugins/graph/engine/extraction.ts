/**
 * The contract between the language parsers and the graph builder: what one source file yields.
 * Parsers produce a FileExtraction per file; the builder resolves names into nodes and edges.
 * Lines are 1-based and inclusive. Names are as written in the source.
 */

/** Languages the engine ingests. */
export type Language = 'typescript' | 'tsx' | 'javascript' | 'python' | 'rust' | 'go' | 'java' | 'markdown';

/** Kinds of symbol a parser reports (file and module nodes are made by the builder). */
export type SymbolKind =
  | 'class'
  | 'interface' // TS/Java interface, Rust trait, Go interface type
  | 'function'
  | 'method'
  | 'type' // type alias, struct, enum, Go named type
  | 'section'; // a Markdown heading section

export interface ExtractedSymbol {
  kind: SymbolKind;
  /** Short name as declared: `bar`. */
  name: string;
  /** Dotted path inside the file, unique per file: `Foo.bar`; sections use their heading chain `Intro.Setup`. */
  qualifiedName: string;
  startLine: number;
  endLine: number;
  /** qualifiedName of the enclosing symbol, if any. */
  parent?: string;
  /** First lines of the doc comment or docstring (at most ~300 chars), if any. */
  doc?: string;
  /** True when visible outside the file (export, pub, capitalised Go name, public Java). */
  exported?: boolean;
  /**
   * Declared result type as written (whitespace folded): Python `-> Foo`, Go `*Route` or
   * `(*Route, error)`, Java `List<Route>`, Rust `Self`, TS `: Foo`. Receiver types flow through it.
   */
  returnType?: string;
  /** Start lines of `@overload` stubs merged into this implementation (Python). */
  overloads?: number[];
  /** Java methods and constructors: declared parameter types as written; a varargs one ends in `...`. */
  params?: string[];
  /** A Java method or constructor declared `private` (not inherited: never an overload a subclass's call reaches). */
  private?: boolean;
  /** TS overload sets merged into this symbol: the text of each signature (without the implementation). */
  signatures?: string[];
  /** During TS extraction only: a body-less signature (`function_signature`, `method_signature`); read and removed by the overload merge. */
  bodiless?: true;
  /** A test living in a source file (Rust: a `#[test]` function, the items of a `#[cfg(test)]` module). */
  test?: boolean;
  /** A Python `@property` getter: reading or assigning the attribute calls it. */
  property?: boolean;
  /** Start lines of the `@name.setter` / `@name.deleter` accessors merged into this property. */
  accessors?: number[];
}

export interface ExtractedImport {
  /** Module specifier as written: './util', 'os.path', 'crate::graph::node', 'fmt', 'java.util.List'. */
  specifier: string;
  line: number;
  /** Imported names; '*' for a wildcard; empty for a bare module import. */
  names: string[];
  /**
   * Types only, never at run time: TypeScript `import type …` / `export type … from` (or every name
   * marked `type`), Python imports under `if TYPE_CHECKING:`. A dependency that exists for the type
   * checker alone (what such imports are written for: breaking an import cycle).
   */
  typeOnly?: true;
  /**
   * Local name bound to the whole module, when the source gives one: `import numpy as np` → 'np',
   * Go `f "fmt"` → 'f', TS `import * as ns from 'x'` → 'ns'. Absent for imports of names.
   */
  alias?: string;
}

export interface ExtractedCall {
  /** qualifiedName of the calling symbol; null for module top level. */
  caller: string | null;
  /** Called name, last segment: `bar` in `foo.bar()`. */
  callee: string;
  /** Receiver or qualifier as written, if any: `self`, `this`, `foo`, `pkg`. */
  receiver?: string;
  line: number;
  /**
   * Java: one entry per argument, to choose among overloads: `:T` for a plain static type (literal,
   * `new T(…)`, cast), the name for a bare identifier, '' when unknown.
   */
  args?: string[];
  /**
   * Java, a call without a receiver inside an anonymous class body (`new Iter<T>() { … nextNode() … }`):
   * the type the body extends or implements, as written (last segment); the call may name its member.
   */
  within?: string;
  /**
   * An attribute read or write without a call (`recv.name`, Python; one per caller, receiver and
   * name): a call only when it resolves to a property of the receiver's known type.
   */
  access?: boolean;
}

/** The name of the bindings that record what a function returns (`return x`, Python): no identifier can spell it. */
export const RETURN_BINDING = '<return>';

export interface ExtractedInherit {
  /** qualifiedName of the subclass / implementing type. */
  child: string;
  /** Parent name as written (last segment). */
  parent: string;
  /** The qualifier of a dotted parent (`httpx` in `httpx.BaseTransport`), when it is a plain dotted name. */
  qualifier?: string;
  kind: 'extends' | 'implements';
}

export interface ExtractedReference {
  /** qualifiedName of the referencing symbol; null for top level. */
  from: string | null;
  /** Referenced type name (last segment). */
  name: string;
  line: number;
}

/**
 * A name bound in a scope: a local, a parameter, a loop or `with` target, or a class/struct field.
 * Bindings shadow outer names and give receivers their static type.
 */
export interface ExtractedBinding {
  /** qualifiedName of the enclosing symbol (the class or struct for a field); null at module level. */
  scope: string | null;
  name: string;
  /** Declared type as written, whitespace folded: `Foo`, `*pkg.Foo`, `[]*Route`, `list[Foo]`, `Vec<Foo>`. */
  type?: string;
  /**
   * The bound value with call arguments, literal bodies and strings elided: `NewFoo()`, `&Foo{}`,
   * `r.NewRoute()`, `new Foo()`, `Foo::new()`. For `range` it is the collection iterated.
   */
  value?: string;
  line: number;
  /**
   * Set for a name bound inside a closure (`func(w, r) {…}`, `(x) => …`): visible only on the lines
   * after the closure's first line up to this one.
   */
  endLine?: number;
  /**
   * `range`: the name takes an element of `value` (`for x in xs`, `for _, r := range rs`). `tparam`:
   * a type parameter with an upper bound (Java `<T extends Node>`: `type` is the bound), a type, not a value.
   * `alias`: a module-level type alias (Python `Endpoint = Callable[[Request], Awaitable[Response]]`: `type` is its text).
   */
  source: 'assign' | 'param' | 'field' | 'range' | 'with' | 'tparam' | 'alias';
}

export interface ExtractedDocLink {
  /** qualifiedName of the Markdown section holding the link. */
  section: string;
  /** A relative link target, a code path (`src/a.ts`), or a symbol in backticks (`activate`). */
  target: string;
  kind: 'link' | 'code_path' | 'code_symbol';
  line: number;
}

export interface FileExtraction {
  /** Workspace-relative path with forward slashes. */
  path: string;
  language: Language;
  /** Number of lines in the file. */
  loc: number;
  symbols: ExtractedSymbol[];
  imports: ExtractedImport[];
  calls: ExtractedCall[];
  inherits: ExtractedInherit[];
  references: ExtractedReference[];
  docLinks: ExtractedDocLink[];
  /** Names bound in scopes (absent for languages and parsers that do not report them). */
  bindings?: ExtractedBinding[];
  /** Count of ERROR/MISSING nodes the parser met (0 for a clean parse). */
  parseErrors: number;
  /** 1-based line of the first ERROR/MISSING node; absent for a clean parse. */
  parseErrorLine?: number;
}
