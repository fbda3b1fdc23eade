/**
 * Offset-preserving repair of TypeScript syntax that tree-sitter-typescript 0.23.2 (the newest build on
 * npm, in @vscode/tree-sitter-wasm 0.3.1) does not parse; docs/graph-model.md lists what was measured.
 * Each rewrite blanks a keyword the grammar lacks (or swaps it for a same-length token), so every byte
 * offset and line stays where it was and what is extracted still points into the real file:
 * - variance annotations `interface I<in T, out U>` → `<   T,     U>`
 * - `keyof readonly T[]` → `keyof          T[]`
 * - `export type * from` → `export      * from`
 * - auto-accessor fields after a modifier `static accessor x = 1` → `static          x = 1`
 * - `global { }` inside `declare module` → `;      { }` (an empty statement and a block)
 * - type arguments of an import type `import("m").Box<T>` → `import("m").Box   ` (the references in them are lost)
 * - an import type indexed or used as an array `import("m").Box[]` → `import_____.Box[]` (the import record is lost)
 * - reserved words as names in an export list (JS grammar) `export { _null as null }` → `as _ull`
 * - `import defer * as ns` → `import       * as ns`; `for (using x of` → `for (      x of` (`await using` too)
 * - a member named `in…` on the line after a type without `;` (`a?: T | undefined⏎ in?: string`): `in` → `i_`
 * The extractor tries this only on files that parse with errors and keeps it only when it parses better.
 */

// Comments may sit between `<`/`,` and the modifier (`/** @ts-ignore Cast variance */ out T`).
const VARIANCE = /([<,](?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n]*\n)*)((?:in\s+)?(?:out\s+)?)(?=[\p{ID_Start}$_][\p{ID_Continue}$]*\s*(?:[,>=]|extends\b))/gu;
const KEYOF_READONLY = /(\bkeyof\s+)readonly\b/g;
const EXPORT_TYPE_STAR = /(\bexport\s+)type(?=\s*\*)/g;
const ACCESSOR =
  /((?:^|[{;}])[ \t]*(?:(?:@[\w$.]+(?:\([^()\n]*\))?|static|public|private|protected|override|readonly|declare|abstract)[ \t]+)*)accessor(?=[ \t]+[#[\p{ID_Start}$_])/gmu;
const NESTED_GLOBAL = /^([ \t]*)global(?=[ \t]*\{)/gm;
const IMPORT_TYPE_ARRAY = /\bimport\s*\(\s*(['"])[^'"\n]*\1\s*\)(?=(?:\s*\.\s*[\p{ID_Start}$_][\p{ID_Continue}$]*)+\s*\[)/gu;
const IMPORT_DEFER = /(\bimport\s+)defer(?=\s+\*)/g;
const FOR_USING = /(\bfor\s*\(\s*)((?:await\s+)?using)(?=\s+[\p{ID_Start}$_][\p{ID_Continue}$]*\s+of\b)/gu;
const IN_MEMBER = /^([ \t]*)in(?=[\p{ID_Continue}$]*\??:)/gmu;
const EXPORT_LIST = /\bexport\s*(?:type\s*)?\{[^{}]*\}/g;
// Words tree-sitter-javascript refuses as export names; `default` and contextual words parse.
const RESERVED_NAME =
  /\b(?:break|case|catch|class|const|continue|debugger|delete|do|else|enum|export|extends|false|finally|for|function|if|import|in|instanceof|new|null|return|super|switch|this|throw|true|try|typeof|var|void|while|with)\b/g;
const IMPORT_TYPE_MEMBER = /\bimport\s*\(\s*(['"])[^'"\n]*\1\s*\)(?:\s*\.\s*[\p{ID_Start}$_][\p{ID_Continue}$]*)+(?=<)/gu;

/** Rewrites the constructs above; returns the same string when none occurs. */
export function repairTypeScript(source: string): string {
  const repaired = source
    .replace(VARIANCE, (all, lead: string, mods: string) => (mods === '' ? all : lead + blank(mods)))
    .replace(KEYOF_READONLY, (_all, lead: string) => `${lead}        `)
    .replace(EXPORT_TYPE_STAR, (_all, lead: string) => `${lead}    `)
    .replace(ACCESSOR, (_all, lead: string) => `${lead}        `)
    .replace(NESTED_GLOBAL, (_all, lead: string) => `${lead};     `)
    .replace(IMPORT_TYPE_ARRAY, (all: string) => `import${all.slice(6).replace(/[^\r\n]/g, '_')}`)
    .replace(IN_MEMBER, (_all, lead: string) => `${lead}i_`)
    .replace(IMPORT_DEFER, (_all, lead: string) => `${lead}     `)
    .replace(EXPORT_LIST, (list: string) => list.slice(0, 6) + list.slice(6).replace(RESERVED_NAME, (word) => `_${word.slice(1)}`))
    .replace(FOR_USING, (_all, lead: string, decl: string) => lead + blank(decl));
  return blankImportTypeArguments(repaired);
}

/** Blanks the `<...>` right after each `import("m").Name`. */
function blankImportTypeArguments(source: string): string {
  let out = '';
  let last = 0;
  IMPORT_TYPE_MEMBER.lastIndex = 0;
  for (let m = IMPORT_TYPE_MEMBER.exec(source); m !== null; m = IMPORT_TYPE_MEMBER.exec(source)) {
    const at = m.index + m[0].length;
    const end = typeArgumentsEnd(source, at);
    if (end < 0) continue;
    out += source.slice(last, at) + blank(source.slice(at, end));
    last = end;
    IMPORT_TYPE_MEMBER.lastIndex = end;
  }
  return last === 0 ? source : out + source.slice(last);
}

/** End (exclusive) of the `<...>` starting at `at`, nesting counted and `=>` skipped; -1 when a `;`, `{` or `}` comes first. */
function typeArgumentsEnd(source: string, at: number): number {
  let depth = 0;
  for (let i = at; i < source.length; i++) {
    const c = source[i];
    if (c === '<') depth++;
    else if (c === '>' && source[i - 1] !== '=') {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === ';' || c === '{' || c === '}') return -1;
  }
  return -1;
}

/** Spaces in place of every character but line breaks. */
function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}
