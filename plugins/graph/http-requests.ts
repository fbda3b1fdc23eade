/**
 * HTTP requests in source text: the URLs a file requests (`fetch`, axios/ky/got/superagent and other
 * client receivers, Python `requests`/`httpx`/sessions/clients, Go `http.Get`/`http.Post`, Spring's
 * RestTemplate), as route keys, for federation (a request in one repository → the handler another
 * serves it with). The routes served are read by http-routes.ts.
 */
import { blankComments } from './source-comments.ts';
import { Capped, CLIENTS, firstMatches, lineIndex, MAX_ROUTES_PER_FILE, routeKey, type CutCount } from './http-routes.ts';

export interface RouteRequest {
  /** The requested path as a route key (`/api/users/{}`). */
  key: string;
  line: number;
  /** Upper-case method, when the call tells it (`axios.post`, `fetch(url)`, `fetch(url, { method: 'POST' })`). */
  method?: string;
}

/**
 * A requested URL as a route key: scheme and host dropped, a leading interpolation read as the base
 * URL (`${API}/users`, f-string `{base}/users`, `%s/users`); null when no absolute path is left.
 */
export function requestKey(url: string): string | null {
  let t = url.trim().replace(/^https?:\/\/[^/]*/i, '');
  t = t.replace(/^(?:\$\{[^}]*\}|\{[^}]*\}|%[sv])+/, '');
  if (!t.startsWith('/') || /[\s"'`]/.test(t.split(/[?#]/)[0])) return null;
  // An f-string's `{id}` inside a segment is a parameter too.
  return routeKey(t.replace(/\{[^}/]*\}/g, '{}'));
}

const CLIENT_CALL = /(?<![\w$])([A-Za-z_$][\w$]*)\.(get|post|put|patch|delete|head|options|request|Get|Post|Head|getForObject|getForEntity|postForObject|postForEntity|exchange)\(\s*f?(["'`])([^"'`\n]*)\3([^\n]*)/g;
const FETCH = /\bfetch\(\s*(["'`])([^"'`\n]*)\1([^\n]*)/g;

/** Parts of a concatenation read after its first literal at most. */
const MAX_PARTS = 16;
/** A call's or parenthesised expression's arguments: nested once, bounded. */
const PARENS = String.raw`\((?:[^()\n]|\([^()\n]{0,80}\)){0,200}\)`;
/** One `+ part` of a concatenation: a string literal (1, 2), or an operand (a name with members, indexes and calls; a number; a parenthesised expression). */
const PART = new RegExp(String.raw`^\s*\+\s*(?:[fr]?(["'\x60])([^"'\x60\n]*)\1|(?:[A-Za-z_$][\w$]*(?:\s*(?:\??\.\s*[A-Za-z_$][\w$]*|\[[^\][\n]{0,80}\]|${PARENS}))*|\d+|${PARENS}))`);

/**
 * The URL a literal starts with what follows it on its line (`'/api/' + v + '/users'`): the literal
 * parts joined, each other part a parameter (`/api/${}/users`). An operand ending the URL after a
 * segment begun (`'/users' + query`) is left out, as a query string or suffix.
 */
export function concatenated(literal: string, rest: string): string {
  let url = literal;
  let tail = rest;
  let pending = false;
  for (let i = 0; i < MAX_PARTS; i++) {
    const m = PART.exec(tail);
    if (!m) break;
    tail = tail.slice(m[0].length);
    if (m[1] === undefined) {
      // An operand after a slash is a segment of its own; glued to a segment, it waits for a literal after it.
      if (url.endsWith('/')) url += '${}';
      else pending = true;
      continue;
    }
    if (pending) url += '${}';
    pending = false;
    url += m[2];
  }
  return url;
}

/** The URLs a file's text requests, as route keys: a literal or a concatenation (`'/api/' + v + '/users'` → /api/{}/users), or a variable holding one. */
export function requestsIn(source: string, file = '', counts?: CutCount): RouteRequest[] {
  const out = new Capped<RouteRequest>(counts);
  if (!/fetch\(|\.(?:get|post|put|patch|delete|Get|Post|request|exchange|\w+For(?:Object|Entity))\(/.test(source)) return out.items;
  // A request commented out requests nothing (with the file's name known: its comment syntax).
  const text = file ? blankComments(file, source) : source;
  const lineOf = lineIndex(text);
  const take = (index: number, literal: string, rest: string, method: string | undefined) => {
    const key = requestKey(concatenated(literal, rest));
    if (key && key !== '/') out.push({ key, line: lineOf(index), ...(method ? { method } : {}) });
  };
  for (const m of firstMatches(text, CLIENT_CALL)) if (!out.done && CLIENTS.test(m[1])) take(m.index, m[4], m[5], requestMethod(m[2], m[5]));
  for (const m of firstMatches(text, FETCH)) if (!out.done) take(m.index, m[2], m[3], requestMethod(undefined, m[3]));
  // A URL built in a variable first: `const url = `${API}/users/${id}`; fetch(url)`, `url = f"{base}/x"; requests.get(url)`.
  const assignments = new Map<string, RegExp>();
  let looked = 0;
  for (const m of firstMatches(text, CALL_WITH_NAME)) {
    if (out.done || looked >= MAX_ROUTES_PER_FILE) break;
    if (m[1] !== undefined && !CLIENTS.test(m[1])) continue;
    looked++;
    let re = assignments.get(m[4]);
    if (!re) assignments.set(m[4], (re = assignmentPattern(m[4])));
    const assigned = lastAssignment(text, re, m.index);
    if (assigned) take(m.index, assigned.literal, assigned.rest, requestMethod(m[2], m[5]));
  }
  return out.items;
}

const CALL_WITH_NAME = /(?:(?<![\w$])([A-Za-z_$][\w$]*)\.(get|post|put|patch|delete|head|options|request|Get|Post|Head|getForObject|getForEntity|postForObject|postForEntity|exchange)|\b(fetch))\(\s*([A-Za-z_$][\w$]*)\s*(?=([,)][^\n]{0,200}))/g;

/** A client call's method: its verb (`axios.post`), an inline `method: 'POST'`, or GET for a `fetch` with no options; undefined when the call does not tell. */
function requestMethod(verb: string | undefined, rest: string): string | undefined {
  const named = verb === undefined || verb === 'request' || verb === 'exchange';
  if (!named) return /^(?:get|Get|getFor\w+)$/.test(verb) ? 'GET' : /^(?:post|Post|postFor\w+)$/.test(verb) ? 'POST' : verb.toUpperCase();
  const given = /\bmethod\s*[:=]\s*["'`](\w+)["'`]/i.exec(rest)?.[1] ?? /\bHttpMethod\.(\w+)/.exec(rest)?.[1];
  if (given) return given.toUpperCase();
  return verb === undefined && /^\s*\)/.test(rest) ? 'GET' : undefined;
}
/** How far before a call its URL variable's assignment is looked for (about one function). */
const ASSIGNMENT_LOOKBACK = 2000;

/** An assignment of a string literal to `name` (the match starts at the name). */
const assignmentPattern = (name: string): RegExp =>
  new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}\\s*(?::\\s*[\\w.]+\\s*)?=(?!=)\\s*f?(["'\`])([^"'\`\\n]*)\\1([^\\n]*)`, 'g');

/** The string literal last assigned (`re`, assignmentPattern) before `index` (within ASSIGNMENT_LOOKBACK characters), and what follows it on its line. */
function lastAssignment(text: string, re: RegExp, index: number): { literal: string; rest: string } | null {
  const before = text.slice(Math.max(0, index - ASSIGNMENT_LOOKBACK), index);
  re.lastIndex = 0;
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(before); m !== null; m = re.exec(before)) if (!keywordArgument(before, m.index)) last = m;
  return last ? { literal: last[2], rest: last[3] } : null;
}

/** Characters before an argument looked through for the call it is in. */
const CALL_LOOKBACK = 300;

/**
 * Whether the name at `at` is a keyword argument of a call (`Item(description="/v1/items")`, its own
 * line or not), not a variable: after `(` or `,` in parentheses no `def` or `function` opens (a
 * parameter's default, `def get(url="/x")`, is the variable's value).
 */
function keywordArgument(text: string, at: number): boolean {
  const from = Math.max(0, at - CALL_LOOKBACK);
  let i = at - 1;
  while (i >= from && /\s/.test(text[i])) i--;
  if (i < from || (text[i] !== '(' && text[i] !== ',')) return false;
  // The `(` left open before the argument, and what names it.
  for (let depth = 0; i >= from; i--) {
    const c = text[i];
    if (c === ')' || c === ']' || c === '}') depth++;
    else if ((c === '(' || c === '[' || c === '{') && depth-- === 0) break;
  }
  // A brace or bracket: a destructuring default (`const { url = '/x' } = o`), a variable all the same.
  if (i < from || text[i] !== '(') return false;
  return !/(?:\b(?:def|function)\s*[\w$]*|=>?|\b(?:async|fn|lambda))\s*$/.test(text.slice(Math.max(from, i - 80), i));
}
