/**
 * What taint analysis recognises in a function's code (not its name): sources of untrusted input,
 * sinks per taint type, and boundaries (validation, sanitisation, auth) — each a pattern over the
 * code with comments removed. A function is a boundary when its code calls one, or when it is the
 * validator itself (its definition line names it so).
 */

export const TAINT_TYPES = ['user_input', 'command', 'sql', 'path', 'html', 'code'] as const;
export type TaintType = (typeof TAINT_TYPES)[number];

/** Sink patterns per concrete taint type (user_input means all of them). */
const SINKS: Record<Exclude<TaintType, 'user_input'>, RegExp> = {
  command: /\b(?:exec|execSync|execFile|execFileSync|spawn|spawnSync|fork)\s*\(|\bos\.(?:system|popen|exec\w*|spawn\w*)\s*\(|\bsubprocess\.\w+\s*\(|\bchild_process\b/,
  sql: /\.(?:query|execute|executemany|raw|unsafe)\s*\(\s*(?:`[^`]*\$\{|f?["'][^"']*["']\s*(?:\+|%|\.format)|f["'])|\bcursor\.execute\s*\(\s*f?["'][^"']*\{|\.(?:query|execute)\s*\(\s*\w+\s*\+/,
  path: /\b(?:writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|unlink|unlinkSync|rm|rmSync)\s*\(|\bopen\s*\([^)]*,\s*["'][wa]|\bos\.(?:remove|unlink)\s*\(|\bshutil\.\w+\s*\(/,
  // `res.send` of a template or of a string concatenated with a value (`'<p>' + name`, not `'<p>' + '</p>'`): a reply as HTML.
  html: /\.innerHTML\s*=|\.outerHTML\s*=|document\.write\s*\(|dangerouslySetInnerHTML|\bres\.send\s*\(\s*`[^`]*\$\{|\bres\.send\s*\([^()\n]{0,200}?(?:["'`]\s*\+\s*[\w$]|[\w$\])]\s*\+\s*["'`])|\bmark_safe\s*\(|\bMarkup\s*\(/,
  code: /\beval\s*\(|\bnew\s+Function\s*\(|\bvm\.run\w*\s*\(|(?<![.\w])exec\s*\(\s*(?:compile|f?["'])/,
};

/** Untrusted input read by the code itself. */
const SOURCE = /\breq(?:uest)?\.(?:body|query|params|headers|cookies|files)\b|\bprocess\.argv\b|\bprocess\.env\b|\bprompt\s*\(|\breadline\b|\brequest\.(?:args|form|json|values|data|GET|POST)\b|\bsys\.argv\b|\bos\.environ\b|(?<![.\w])input\s*\(/;

/**
 * A call to a validator/sanitiser/auth check, or a definition of one. `check_output`/`check_call`
 * are subprocess's sinks, not checks.
 */
const BOUNDARY_CALL = /(?<!\b(?:def|function|fn|func)\s+)\b(?!check_(?:output|call)\b)(?:\w*(?:[vV]alidat|[sS]anitiz|[sS]anitis|[eE]scape|[qQ]uote|[aA]llow[lL]ist|[wW]hite[lL]ist|[aA]uthori[sz]|[aA]uthenticat|[vV]erify|[aA]ssert[A-Z_]|[cC]heck[A-Z_]|[pP]arse(?:Int|Float))\w*)\s*\(|\bshlex\.quote\s*\(|\b\w+\.(?:parse|safeParse)\s*\(|\brequire[A-Z]\w*\s*\(|\bencodeURIComponent\s*\(|\bhtml\.escape\s*\(|\bpath\.basename\s*\(/;
const BOUNDARY_DEF = /(?:function|def|const|let|var|fn)\s+\w*(?:[vV]alidat|[sS]anitiz|[sS]anitis|[eE]scape|[aA]uthori[sz]|[aA]uthenticat|[vV]erify)\w*/;

/**
 * Code with line comments, block comments and docstring-only lines removed (strings stay: SQL lives
 * in them). Line for line: a block comment keeps its line breaks, so line k of the result is line k
 * of the text (top-level statements are named by their line).
 */
export function codeOnly(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]+/g, ' '))
    .split('\n')
    .map((line) => line.replace(/^\s*(?:\/\/|#).*$/, '').replace(/\s\/\/\s.*$/, ''))
    .join('\n');
}

export interface CodeFacts {
  source: boolean;
  sinks: Exclude<TaintType, 'user_input'>[];
  /**
   * Of `sinks`, those the input read here can reach: a sink on or after the line of the first source
   * read, or a sink call still open there (`exec(\n  req.body.cmd)`). A sink run before any input is
   * read (a test writing its fixture file, then building a request) takes none of it. All of `sinks`
   * when the code reads no source (its input comes in through its parameters).
   */
  sinksAfterSource: Exclude<TaintType, 'user_input'>[];
  /** The first boundary call or definition found, as written. */
  boundary: string | null;
  /**
   * The function validates what it is given, whatever its name: its definition names it so, or its
   * code raises/throws under a condition and returns one of its parameters (`clean(name)` that
   * raises unless `name.isalnum()` and returns it). A function calling it is a boundary.
   */
  validator: boolean;
}

/** A raise/throw under an `if` (the statement on the same line or the next, braces or not). */
const CONDITIONAL_RAISE = /\bif\b[^\n]*(?:\n\s*)?\{?\s*(?:raise|throw)\b/;

/** The parameter names of a definition whose text starts at `code` (self/this and rest markers dropped). */
export function parameterNames(code: string): string[] {
  const open = code.indexOf('(');
  if (open < 0 || open > 200) return [];
  let depth = 0;
  let end = open;
  for (; end < code.length && end < open + 1000; end++) {
    const c = code[end];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && --depth === 0) break;
  }
  const names: string[] = [];
  let nest = 0;
  let start = open + 1;
  const take = (part: string) => {
    const m = /^\s*(?:\.\.\.|\*{1,2})?\s*(?:(?:public|private|protected|readonly)\s+)*([A-Za-z_$][\w$]*)/.exec(part);
    if (m && m[1] !== 'self' && m[1] !== 'cls' && m[1] !== 'this') names.push(m[1]);
  };
  for (let k = open + 1; k < end; k++) {
    const c = code[k];
    if (c === '(' || c === '[' || c === '{' || c === '<') nest++;
    else if (c === ')' || c === ']' || c === '}' || c === '>') nest--;
    else if (c === ',' && nest === 0) {
      take(code.slice(start, k));
      start = k + 1;
    }
  }
  take(code.slice(start, end));
  return names;
}

/** Whether a function's code guards a parameter: a conditional raise/throw, and a parameter returned (as is or transformed). */
function guardsInput(code: string): boolean {
  if (!CONDITIONAL_RAISE.test(code)) return false;
  const params = parameterNames(code);
  return params.length > 0 && new RegExp(`\\breturn\\s+(?:${params.map((p) => p.replace(/\$/g, '\\$')).join('|')})\\b`).test(code);
}

/** How far back a sink call's open bracket is looked for (a call's arguments rarely run longer). */
const OPEN_CALL_SPAN = 2000;

/** Whether a match of `sink` before `at` opens a call whose brackets are still open at `at`. */
function sinkOpenAt(code: string, sink: RegExp, at: number): boolean {
  const from = Math.max(0, at - OPEN_CALL_SPAN);
  const all = new RegExp(sink.source, 'g');
  all.lastIndex = from;
  for (let m = all.exec(code); m && m.index < at; m = all.exec(code)) {
    const open = code.indexOf('(', m.index);
    if (open < 0 || open >= at) continue;
    let depth = 0;
    for (let k = open; k < at; k++) {
      const c = code.charCodeAt(k);
      if (c === 40) depth++;
      else if (c === 41 && --depth === 0) break;
    }
    if (depth > 0) return true;
  }
  return false;
}

/** The sinks of `code` that input read by it can reach (see CodeFacts.sinksAfterSource). */
function sinksAfterSourceOf(code: string, sinks: Exclude<TaintType, 'user_input'>[]): Exclude<TaintType, 'user_input'>[] {
  const source = SOURCE.exec(code);
  if (!source || sinks.length === 0) return sinks;
  const line = code.lastIndexOf('\n', source.index) + 1;
  const after = code.slice(line);
  return sinks.filter((k) => SINKS[k].test(after) || sinkOpenAt(code, SINKS[k], line));
}

/** Sources, sinks and boundaries in one function's code; `extraBoundaries` are caller-given names. */
export function codeFacts(code: string, extraBoundaries: RegExp | null): CodeFacts {
  const sinks = (Object.keys(SINKS) as Exclude<TaintType, 'user_input'>[]).filter((k) => SINKS[k].test(code));
  const firstLine = code.split('\n', 1)[0];
  const call = code.match(BOUNDARY_CALL) ?? (extraBoundaries ? code.match(extraBoundaries) : null);
  const def = BOUNDARY_DEF.test(firstLine) ? firstLine.trim().slice(0, 80) : null;
  return { source: SOURCE.test(code), sinks, sinksAfterSource: sinksAfterSourceOf(code, sinks), boundary: def ?? (call ? call[0].replace(/\s*\($/, '(') : null), validator: def !== null || guardsInput(code) };
}

/** The sink types a taint type looks for. */
export function sinkTypesOf(t: TaintType): Exclude<TaintType, 'user_input'>[] {
  return t === 'user_input' ? (Object.keys(SINKS) as Exclude<TaintType, 'user_input'>[]) : [t];
}
