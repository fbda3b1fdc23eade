/**
 * Argument validation against a verb's TypeBox schema: defaults filled in, unknown parameters
 * refused (a parameter is honoured or refused, never ignored), and an error that names the JSON
 * path, the expected type and a minimal valid call.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { Kind, type TObject, type TSchema } from '@sinclair/typebox';
import { ErrorCodes, M1ndError } from './errors.ts';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/**
 * The compiled checker of a schema, compiled on first use and once per schema object. Verbs' schemas
 * are compiled on their first call, not at plugin load (compiling all of them was ~8% of a start);
 * the loader compiles at once only what `compilesSurely` cannot vouch for.
 */
export function checkerFor(schema: TSchema, verb?: string): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (c) return c;
  try {
    c = TypeCompiler.Compile(schema);
  } catch (error) {
    throw new M1ndError(ErrorCodes.VERB_SCHEMA, `${verb ? `verb "${verb}": ` : ''}schema does not compile: ${(error as Error).message}`, {
      hint: 'fix the verb\'s TypeBox schema in its plugin; other verbs still work',
    });
  }
  compiled.set(schema, c);
  return c;
}

/** TypeBox kinds whose compilation needs no references and throws on nothing but a bad regular expression. */
const PLAIN_KINDS = new Set(['Any', 'Array', 'Boolean', 'Date', 'Integer', 'Intersect', 'Literal', 'Never', 'Null', 'Number', 'Object', 'Record', 'String', 'Tuple', 'Uint8Array', 'Undefined', 'Union', 'Unknown', 'Void']);

function compilesRegExp(source: unknown): boolean {
  if (typeof source !== 'string') return source === undefined;
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `TypeCompiler.Compile(schema)` is sure to succeed, by a walk much cheaper than compiling:
 * every subschema is of a plain kind (no references, no unregistered or custom kinds) and every
 * pattern is a valid regular expression. False means "compile it now to find out", not "broken".
 */
export function compilesSurely(schema: unknown, depth = 0): boolean {
  if (!schema || typeof schema !== 'object' || depth > 32) return false;
  const s = schema as Record<string | symbol, unknown>;
  const kind = s[Kind];
  if (typeof kind !== 'string' || !PLAIN_KINDS.has(kind) || !compilesRegExp(s.pattern)) return false;
  const sub = (v: unknown): boolean => compilesSurely(v, depth + 1);
  for (const key of ['anyOf', 'allOf', 'oneOf']) {
    const list = s[key];
    if (list !== undefined && (!Array.isArray(list) || !list.every(sub))) return false;
  }
  if (s.items !== undefined && !(Array.isArray(s.items) ? s.items.every(sub) : sub(s.items))) return false;
  if (s.not !== undefined && !sub(s.not)) return false;
  if (s.additionalProperties !== undefined && typeof s.additionalProperties !== 'boolean' && !sub(s.additionalProperties)) return false;
  if (s.unevaluatedProperties !== undefined && typeof s.unevaluatedProperties !== 'boolean' && !sub(s.unevaluatedProperties)) return false;
  for (const key of ['properties', 'patternProperties']) {
    const map = s[key];
    if (map === undefined) continue;
    if (!map || typeof map !== 'object') return false;
    for (const [name, value] of Object.entries(map)) {
      if (key === 'patternProperties' && !compilesRegExp(name)) return false;
      if (!sub(value)) return false;
    }
  }
  return true;
}

/** A one-line description of what a schema accepts: `integer >= 1`, `"a" | "b"`, `string[]`. */
export function describeSchema(s: TSchema | undefined): string {
  if (!s) return 'nothing (unknown parameter)';
  if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(s.anyOf)) return s.anyOf.map((x: TSchema) => describeSchema(x)).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === 'array') {
    const counts = [s.minItems ? `at least ${s.minItems}` : '', s.maxItems !== undefined ? `at most ${s.maxItems}` : ''].filter(Boolean);
    return `${describeSchema(s.items)}[]${counts.length ? ` (${counts.join(', ')} items)` : ''}`;
  }
  const bounds: string[] = [];
  if (s.minimum !== undefined) bounds.push(`>= ${s.minimum}`);
  if (s.maximum !== undefined) bounds.push(`<= ${s.maximum}`);
  if (s.minLength !== undefined) bounds.push(`length >= ${s.minLength}`);
  if (s.maxLength !== undefined) bounds.push(`length <= ${s.maxLength}`);
  if (s.pattern !== undefined) bounds.push(`matching /${s.pattern}/`);
  return [s.type ?? 'any value', ...bounds].join(' ');
}

/** An example value `s` accepts; `nth` picks among its examples, so the items of a minimal array differ. */
function exampleFor(s: TSchema, nth = 0): unknown {
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[nth % s.examples.length];
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.anyOf)) return exampleFor(s.anyOf[0], nth);
  switch (s.type) {
    case 'string':
      return s.minLength ? 'x'.repeat(s.minLength) : '…';
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, (_, i) => exampleFor(s.items, i));
    case 'object':
      return minimalArguments(s as TObject, nth);
    default:
      return null;
  }
}

/** Whether a caller must pass this parameter (declared required and without a default to fill in). */
export function mustPass(schema: TObject, key: string): boolean {
  return (schema.required ?? []).includes(key) && schema.properties?.[key]?.default === undefined;
}

/**
 * The smallest argument object that names every parameter a caller must pass, with an example value;
 * a schema's own object example wins (a verb whose valid call needs one of several optional inputs).
 */
export function minimalArguments(schema: TObject, nth = 0): Record<string, unknown> {
  const own = Array.isArray(schema.examples) ? schema.examples[nth % schema.examples.length] : undefined;
  if (own && typeof own === 'object' && !Array.isArray(own)) return structuredClone(own) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of (schema.required ?? []).filter((k: string) => mustPass(schema, k))) {
    const prop = schema.properties?.[key];
    out[key] = key === 'agent_id' ? 'my-agent' : prop ? exampleFor(prop, nth) : null;
  }
  return out;
}

/** `verb({...})` text of a minimal valid call. */
export function minimalCall(verb: string, schema: TObject): string {
  return `${verb}(${JSON.stringify(minimalArguments(schema))})`;
}

function schemaAt(schema: TSchema, pointer: string): TSchema | undefined {
  let s: TSchema | undefined = schema;
  for (const part of pointer.split('/').slice(1)) {
    if (!s) return undefined;
    if (s.type === 'array') s = s.items;
    else s = s.properties?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return s;
}

/** What validating one schema needs, derived once per schema object (not per call). */
interface CompiledArguments {
  checker: TypeCheck<TSchema>;
  known: Set<string>;
  knownList: string[];
  /** Top-level defaults, when every default of the schema is a top-level property's own. */
  topDefaults: [string, unknown][] | undefined;
  /** Whether any default is nested deeper (then a deep copy and TypeBox's Value.Default are needed). */
  nestedDefaults: boolean;
}
const compiledArguments = new WeakMap<TObject, CompiledArguments>();

function hasDefault(s: unknown): boolean {
  if (!s || typeof s !== 'object') return false;
  if ('default' in s) return true;
  return Object.values(s).some((v) => (Array.isArray(v) ? v.some(hasDefault) : hasDefault(v)));
}

function compileArguments(verb: string, schema: TObject): CompiledArguments {
  let c = compiledArguments.get(schema);
  if (c) return c;
  const props = Object.entries(schema.properties ?? {}) as [string, TSchema][];
  const nestedDefaults = props.some(([, p]) => {
    const { default: _own, ...rest } = p;
    return hasDefault(rest);
  });
  const topDefaults = props.filter(([, p]) => p.default !== undefined).map(([k, p]): [string, unknown] => [k, p.default]);
  c = { checker: checkerFor(schema, verb), known: new Set(props.map(([k]) => k)), knownList: props.map(([k]) => k), topDefaults: nestedDefaults ? undefined : topDefaults, nestedDefaults };
  compiledArguments.set(schema, c);
  return c;
}

/** A default value as a fresh copy (objects and arrays are never shared between calls). */
function freshDefault(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}

/** Validates and returns the arguments with defaults filled in; throws M1ndError on bad input. */
export function validateArguments(verb: string, schema: TObject, raw: unknown): Record<string, unknown> {
  const c = compileArguments(verb, schema);
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const minimal = minimalCall(verb, schema);
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${verb}: arguments must be an object`, {
      hint: `minimal valid call: ${minimal}`,
      data: { path: '/', expected: 'object', minimal_call: minimal },
    });
  }
  let unknown: string[] | undefined;
  for (const k in raw) if (!c.known.has(k)) (unknown ??= []).push(k);
  if (unknown) {
    // Unknown names are quoted back clipped, and at most ten of them.
    unknown = unknown.slice(0, 10).map(clipped);
    const minimal = minimalCall(verb, schema);
    throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${verb}: unknown parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `/${k}`).join(', ')}`, {
      hint: `${verb} takes: ${c.knownList.join(', ')}; minimal valid call: ${minimal}`,
      data: { path: `/${unknown[0]}`, expected: 'no such parameter', unknown, accepted: c.knownList, minimal_call: minimal },
    });
  }
  // The caller's object is never mutated: a shallow copy when defaults are top-level only.
  let args: Record<string, unknown>;
  if (c.topDefaults) {
    // Object.assign, not a spread: measured several times faster for these small objects in V8.
    args = Object.assign({}, raw as Record<string, unknown>);
    for (const [k, v] of c.topDefaults) if (args[k] === undefined) args[k] = freshDefault(v);
  } else {
    args = Value.Default(schema, structuredClone(raw)) as Record<string, unknown>;
  }
  const checker = c.checker;
  if (checker.Check(args)) return args;
  const minimal = minimalCall(verb, schema);
  const first = checker.Errors(args).First();
  const pointer = first?.path || '/';
  const expected = describeSchema(schemaAt(schema, pointer) ?? first?.schema);
  const got = first?.value === undefined ? 'nothing' : clipped(JSON.stringify(first.value));
  throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${verb}: ${pointer} expected ${expected}, got ${got}`, {
    hint: `minimal valid call: ${minimal}; full reference: help({"agent_id":"…","tool_name":"${verb}"})`,
    data: { path: pointer, expected, got: echoed(first?.value, got), reason: first?.message, minimal_call: minimal },
  });
}

/** A refused value as detail echoes it: itself when short, else its clipped JSON text (a 1,000-item array is not echoed). */
function echoed(value: unknown, text: string): unknown {
  if (typeof value === 'string') return clipped(value);
  return text === 'nothing' || text.length <= 64 ? value : text;
}

/** A refused value quoted back at most 64 characters long (a 100 KB argument is not echoed). */
function clipped(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}… (${text.length} characters)` : text;
}
