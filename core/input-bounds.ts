/**
 * Bounded input, refused cheaply before any work: a tool name of at most 128 characters, argument
 * JSON of at most `maxArgumentBytes` (default 1 MiB), nesting at most 64 deep, and every string and
 * array parameter of every verb bounded (paths 4,096 characters, free text 16,384; lists 1,000
 * items) — bounds a verb's schema lacks are added at registration. Refusals quote a short prefix.
 * Also names the workspace-path parameters of a schema, which the graph plugin's path gate checks.
 */
import type { TSchema } from '@sinclair/typebox';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, M1ndError } from './errors.ts';

/** Longest accepted tool name. */
export const MAX_TOOL_NAME_CHARS = 128;
/** Deepest accepted nesting of the arguments (objects and arrays). */
export const MAX_ARGUMENT_DEPTH = 64;
/** Default cap on the arguments' JSON size in bytes (M1ND_MAX_ARGUMENT_BYTES overrides it). */
export const DEFAULT_MAX_ARGUMENT_BYTES = 1024 * 1024;
/** Bound added to a path-like string parameter that declares none. */
export const MAX_PATH_CHARS = 4096;
/** Bound added to any other string parameter that declares none (queries, notes, error texts). */
export const MAX_TEXT_CHARS = 16_384;
/** Bound added to an array parameter that declares none. */
export const MAX_LIST_ITEMS = 1000;
/** Characters of an offending value quoted back in a refusal. */
const ECHO_CHARS = 64;

/** Parameter names that hold a workspace path (or a list of them). */
const PATH_NAME = /^(file|files|path|paths|scope|root|project_root|dir|directory|folder)$|_(path|paths|file|files|dir|root)$/;

/** A short quotable prefix of any value (never the whole of a huge input). */
export function quotePrefix(value: unknown): string {
  const s = typeof value === 'string' ? value : String(value);
  return JSON.stringify(s.length > ECHO_CHARS ? `${s.slice(0, ECHO_CHARS)}…` : s);
}

function refusal(message: string, hint: string, data: Record<string, unknown>): CallToolResult {
  const error = new M1ndError(ErrorCodes.CALL_INPUT_TOO_LARGE, message, { hint, data });
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: error.code, message: error.message, hint: error.hint, detail: error.data } }) }] };
}

/**
 * The generic checks of one tools/call, before the verb is even looked up: tool name length,
 * argument nesting depth and JSON size (one iterative walk, linear, stopping at the first excess).
 * Returns the refusal as a tool result, or undefined when the call may proceed.
 */
export function refuseUnboundedCall(name: unknown, args: unknown, maxArgumentBytes = DEFAULT_MAX_ARGUMENT_BYTES): CallToolResult | undefined {
  if (typeof name === 'string' && name.length > MAX_TOOL_NAME_CHARS) {
    return refusal(`tool name ${quotePrefix(name)} is ${name.length} characters, over the ${MAX_TOOL_NAME_CHARS} accepted`, 'call a verb by its name: help({"agent_id":"…","mode":"overview"}) lists them', { limit: MAX_TOOL_NAME_CHARS });
  }
  if (flatWithin(args, maxArgumentBytes)) return undefined;
  // An explicit stack: 10,000-deep input must not overflow the call stack of a recursive walk.
  const stack: { value: unknown; depth: number }[] = [{ value: args, depth: 0 }];
  let bytes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === 'string') bytes += value.length + 2;
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) bytes += 5;
    else if (typeof value === 'object') {
      if (depth >= MAX_ARGUMENT_DEPTH) {
        return refusal(`arguments are nested deeper than ${MAX_ARGUMENT_DEPTH} levels`, 'pass flat arguments as the verb schema describes: help({"agent_id":"…","tool_name":"<verb>"})', { limit: MAX_ARGUMENT_DEPTH });
      }
      bytes += 2;
      if (Array.isArray(value)) for (const v of value) stack.push({ value: v, depth: depth + 1 });
      else
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          bytes += k.length + 3;
          stack.push({ value: v, depth: depth + 1 });
        }
    }
    if (bytes > maxArgumentBytes) {
      return refusal(`arguments are larger than ${maxArgumentBytes} bytes`, 'send less: narrow the call, or split a long list over several calls (M1ND_MAX_ARGUMENT_BYTES raises the cap)', { limit: maxArgumentBytes });
    }
  }
  return undefined;
}

/**
 * The common case without allocating: a plain object of strings, numbers, booleans and nulls whose
 * size (counted as the walk below counts it) is within the cap. False sends it to the walk.
 */
function flatWithin(args: unknown, maxArgumentBytes: number): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  let bytes = 2;
  for (const k in args) {
    if (!Object.hasOwn(args, k)) return false;
    const v = (args as Record<string, unknown>)[k];
    if (typeof v === 'string') bytes += k.length + 3 + v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) bytes += k.length + 3 + 5;
    else if (v !== undefined) return false;
    else bytes += k.length + 3;
  }
  return bytes <= maxArgumentBytes;
}

/** Whether a parameter is a workspace path: by name (file, files, path, scope, …_path), unless its schema says `workspacePath: false`. */
export function isPathParameter(name: string, schema: TSchema): boolean {
  if (schema.workspacePath === false) return false;
  if (schema.workspacePath === true) return true;
  const leaf = schema.type === 'array' ? schema.items : schema;
  if (!leaf || leaf.type !== 'string' || Array.isArray(leaf.enum) || leaf.const !== undefined) return false;
  return PATH_NAME.test(name);
}

/** One workspace-path parameter of a schema: its name and whether it is a list of paths. */
export interface PathParameter {
  name: string;
  list: boolean;
}

/** The top-level workspace-path parameters of a verb's input schema. */
export function pathParameters(input: TSchema): PathParameter[] {
  const out: PathParameter[] = [];
  for (const [name, s] of Object.entries((input.properties ?? {}) as Record<string, TSchema>)) {
    if (isPathParameter(name, s)) out.push({ name, list: s.type === 'array' });
  }
  return out;
}

/**
 * Adds the default bounds to every string (maxLength) and array (maxItems) of an input schema
 * that declares none, in place, so validation refuses oversized arguments before the handler.
 */
export function boundInputSchema(schema: TSchema, name = ''): void {
  const walk = (s: TSchema | undefined, key: string): void => {
    if (!s || typeof s !== 'object') return;
    if (s.type === 'string' && s.maxLength === undefined && s.enum === undefined && s.const === undefined) {
      s.maxLength = PATH_NAME.test(key) && s.workspacePath !== false ? MAX_PATH_CHARS : MAX_TEXT_CHARS;
    }
    if (s.type === 'array') {
      if (s.maxItems === undefined) s.maxItems = MAX_LIST_ITEMS;
      walk(s.items, key);
    }
    for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) walk(v, k);
    for (const v of (s.anyOf ?? []) as TSchema[]) walk(v, key);
  };
  walk(schema, name);
}

/** Whether a bound is one of the defaults added here (tools/list leaves those out: validation enforces them). */
export function isDefaultBound(key: 'maxLength' | 'maxItems', value: unknown): boolean {
  return key === 'maxLength' ? value === MAX_PATH_CHARS || value === MAX_TEXT_CHARS : value === MAX_LIST_ITEMS;
}
