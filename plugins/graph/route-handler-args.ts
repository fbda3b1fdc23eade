/**
 * The handler argument of a JavaScript- or Go-style route registration (`x.get('/orders/:id', getOrder)`):
 * read from the call's own arguments (an arrow later on the line, `store.get('/x', opts).then((r) => r)`,
 * is no handler of it), and never a name the file binds to a plain value (`cache.put('/x', description)`
 * with `const description = '…'`: a key and a value, no route), nor a name the file tells nothing of
 * (a parameter: `cache.put('/x', v)`) unless the receiver is a router (route-evidence.ts).
 */
import { firstMatches } from './http-routes.ts';

/** Characters of a call's arguments read at most. */
const MAX_ARGS_CHARS = 2000;
const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
/** A function written among the arguments (or wrapped: `asyncHandler(async (req, res) => …)`). */
const INLINE_FUNCTION = /=>|\bfunction\b|\bfunc\b/;
/** A name bound to a string, number, boolean or null: `const description = '/v1/items'`, `limit := 10`. */
const VALUE_BINDING = /(?<![\w$.])([A-Za-z_$][\w$]*)[ \t]*(?::[ \t]*[\w.<>|[\] ]{1,60}?[ \t]*)?(?::=|=)(?![=>])[ \t]*(?:["'`]|-?\d|(?:true|false|null|None|undefined|nil)\b)/g;
/** A function declared by name: `function getOrder`, `def get_order`, `func GetOrder`, `func (s *S) GetOrder`. */
export const FUNCTION_DECL = /\b(?:function\*?|def|func(?:[ \t]*\([^()\n]{0,200}\))?)[ \t]+([A-Za-z_$][\w$]*)/g;

/**
 * The top-level arguments of a call, from `rest` (what follows its first argument's comma) to the
 * `)` closing it, or to the line's end when it goes on below (an inline handler's body).
 */
export function callArgs(rest: string): string[] {
  const s = rest.slice(0, MAX_ARGS_CHARS);
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < s.length && s[i] !== c; i++) if (s[i] === '\\') i++;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth-- === 0) {
        out.push(s.slice(start, i).trim());
        return out;
      }
    } else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** Per text: whether a name is bound to a plain value and declared as no function (the names read once, on the first question). */
export function valueNames(text: string): (name: string) => boolean {
  let values: Set<string> | undefined;
  let functions: Set<string> | undefined;
  return (name) => {
    values ??= new Set(Array.from(firstMatches(text, VALUE_BINDING), (m) => m[1]));
    if (!values.has(name)) return false;
    functions ??= new Set(Array.from(firstMatches(text, FUNCTION_DECL), (m) => m[1]));
    return !functions.has(name);
  };
}

/** What a file tells of the names a registration-like call uses (route-evidence.ts, valueNames). */
export interface HandlerEvidence {
  /** Whether the file binds the name to a plain value (and declares no function of it). */
  isValue: (name: string) => boolean;
  /** Whether the file declares the name as a function or imports it. */
  isFunction: (name: string) => boolean;
}

/**
 * A registration's handler from what follows its path (`rest`): the last argument when it is a (dotted)
 * identifier (its last segment) that is no plain value and either a function the file declares or
 * imports (for a dotted one: its head, `users` of `users.list`) or passed to a router (`routerReceiver`, asked only then);
 * `inline` for a function written among the arguments; null when the call passes no function
 * (`axios.get('/x', { params })`, `cache.put('/x', value)`, `cache.put('/x', v)` with `v` a parameter).
 */
export function handlerArgument(rest: string, names: HandlerEvidence, routerReceiver: () => boolean): { handler?: string } | null {
  const args = callArgs(rest);
  const last = args[args.length - 1];
  if (IDENT.test(last)) {
    const dot = last.indexOf('.');
    if (dot < 0 && names.isValue(last)) return null;
    if (routerReceiver() || names.isFunction(dot < 0 ? last : last.slice(0, dot))) return { handler: last.slice(last.lastIndexOf('.') + 1) };
  }
  return args.some((a) => INLINE_FUNCTION.test(a)) ? {} : null;
}
