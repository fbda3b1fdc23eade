/**
 * Cuts a result down to the host's result token limit while keeping it valid JSON of the same
 * shape: the largest arrays lose their tail first (they are ranked), then the longest strings
 * are shortened. Array items are never altered, so a result valid against its output schema
 * stays valid (arrays keep at least one item).
 *
 * The result is serialised once here; the text travels with the value so the host sends it as is.
 * It is tokenised only when its UTF-8 length exceeds the limit (see measureText). The cut copies
 * only the containers on the way to what it cuts; the rest is shared with the handler's value.
 *
 * One algorithm, two drivers: `shapeToTokenLimit` counts in one go; `shapeToTokenLimitPaced` (for
 * large results) counts in slices of a few ms and gives the event loop a turn between its steps.
 */
import { countTokens, nextTurn, utf8Bytes } from './tokens.ts';
import { countTokensPaced } from './tokens-paced.ts';
import type { Truncation } from './call-state.ts';

const STRING_MARK = ' …[cut]';
/** Strings shorter than this are never cut (ids, paths, names): longer ones are cut, the longest first, once no array can lose more. */
const MIN_CUT_STRING = 32;
/** The longest stretch of shaping work between two turns of the event loop (paced driver). */
const SHAPE_SLICE_MS = 8;

/** A value as the host sends it: strings as they are, anything else as compact JSON. */
export function serialise(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** A shaped result: the value, its text as sent, its UTF-8 length, its token count when it was counted, and what was cut. */
export interface Shaped {
  value: unknown;
  text: string;
  bytes: number;
  /** Exact BPE count; counted only when the text's byte length exceeded the limit (or it was cut). */
  tokens?: number;
  truncation?: Truncation;
}

/** What a shaping step needs from its driver: a text's exact count, or a chance to yield. */
type Need = { count: string } | 'pause';
type Steps = Generator<Need, Shaped, number>;

/**
 * Returns the value cut to at most `limit` tokens (counted by the real tokenizer when its size says
 * it may exceed them) and what was cut. `original`: the text's count when already known.
 */
export function shapeToTokenLimit(value: unknown, limit: number, text = serialise(value), original?: number): Shaped {
  const steps = shapeSteps(value, limit, text, original);
  for (let r = steps.next(); ; ) {
    if (r.done) return r.value;
    r = steps.next(r.value === 'pause' ? 0 : countTokens(r.value.count));
  }
}

/** `shapeToTokenLimit`, the same cuts and counts, holding the event loop for a few ms at a time. */
export async function shapeToTokenLimitPaced(value: unknown, limit: number, text = serialise(value), original?: number): Promise<Shaped> {
  // A turn first: the handler that made the value and its serialisation ran in this one.
  await nextTurn();
  const steps = shapeSteps(value, limit, text, original);
  let until = performance.now() + SHAPE_SLICE_MS;
  for (let r = steps.next(); ; ) {
    if (r.done) return r.value;
    if (r.value === 'pause') {
      if (performance.now() >= until) {
        await nextTurn();
        until = performance.now() + SHAPE_SLICE_MS;
      }
      r = steps.next(0);
    } else {
      const tokens = await countTokensPaced(r.value.count);
      until = performance.now() + SHAPE_SLICE_MS;
      r = steps.next(tokens);
    }
  }
}

function* shapeSteps(value: unknown, limit: number, text: string, known: number | undefined): Steps {
  const bytes = utf8Bytes(text);
  if (bytes <= limit) return { value, text, bytes };
  const original = known ?? (yield { count: text });
  if (original <= limit) return { value, text, bytes, tokens: original };
  if (typeof value === 'string') return yield* cutString(value, limit, original);
  const cuts = new Map<string, Truncation['cuts'][number]>();
  const owned = new WeakSet<object>();
  let root = value;
  let tokens = original;
  let out = text;
  for (let round = 0; round < 200 && tokens > limit; round++) {
    yield 'pause';
    const { array, string } = yield* largest(root);
    const ratio = (limit / tokens) * 0.9;
    if (array) {
      const items = array.value as unknown[];
      const keep = Math.max(1, Math.min(items.length - 1, Math.floor(items.length * ratio)));
      root = setIn(root, array.chain, items.slice(0, keep), owned);
      const path = pathOf(array.chain);
      const prev = cuts.get(path);
      cuts.set(path, { path, kept: keep, dropped: items.length - keep + (prev?.dropped ?? 0) });
    } else if (string) {
      const str = string.value as string;
      const keep = prefixLength(str, Math.floor(str.length * ratio));
      root = setIn(root, string.chain, str.slice(0, keep) + STRING_MARK, owned);
      const path = pathOf(string.chain);
      const prev = cuts.get(path);
      cuts.set(path, { path, chars_cut: str.length - keep + (prev?.chars_cut ?? 0) });
    } else break;
    yield 'pause';
    out = JSON.stringify(root);
    tokens = yield { count: out };
  }
  return { value: root, text: out, bytes: utf8Bytes(out), tokens, truncation: { original_tokens: original, limit, cuts: [...cuts.values()] } };
}

function* cutString(value: string, limit: number, original: number): Steps {
  let text = value;
  let tokens = original;
  let out = value;
  while (tokens > limit && text.length > 0) {
    text = text.slice(0, prefixLength(text, Math.floor(text.length * (limit / tokens) * 0.95)));
    out = text + STRING_MARK;
    tokens = yield { count: out };
  }
  return { value: out, text: out, bytes: utf8Bytes(out), tokens, truncation: { original_tokens: original, limit, cuts: [{ path: '$', chars_cut: value.length - text.length }] } };
}

type Key = string | number;
interface Pick {
  chain: Key[];
  size: number;
  value: unknown;
}

interface Frame {
  v: unknown[] | object;
  held: boolean;
  /** An object's entries (undefined for an array). */
  entries: [string, unknown][] | undefined;
  i: number;
  size: number;
}

/**
 * The largest array (by its JSON length; more than one item, not the result itself) and the longest
 * string (over MIN_CUT_STRING characters, not the result itself), each the first in document order
 * among equals; one pass, JSON lengths summed as containers close, a pause every 4,096 values.
 */
function* largest(root: unknown): Generator<Need, { array?: Pick; string?: Pick }, number> {
  const chain: Key[] = [];
  const stack: Frame[] = [];
  let array: Pick | undefined;
  let string: Pick | undefined;
  /** A leaf's JSON length (-1: left out of an object, null in an array), or undefined once a container's frame is pushed. */
  const open = (v: unknown, held: boolean): number | undefined => {
    if (Array.isArray(v)) {
      stack.push({ v, held, entries: undefined, i: 0, size: v.length > 0 ? v.length + 1 : 2 });
      return undefined;
    }
    if (v !== null && typeof v === 'object') {
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return (JSON.stringify(v) ?? '').length;
      stack.push({ v, held, entries: Object.entries(v), i: 0, size: 1 });
      return undefined;
    }
    if (typeof v === 'string') {
      if (held && v.length > MIN_CUT_STRING && (!string || v.length > string.size)) string = { chain: [...chain], size: v.length, value: v };
      return jsonStringLength(v);
    }
    if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4;
    if (typeof v === 'boolean') return v ? 4 : 5;
    return v === null ? 4 : -1; // undefined, a function or a symbol
  };
  const add = (parent: Frame, key: Key, size: number): void => {
    if (!parent.entries) parent.size += size < 0 ? 4 : size;
    else if (size >= 0) parent.size += jsonStringLength(key as string) + 2 + size;
  };
  open(root, false);
  for (let visited = 1; stack.length > 0; visited++) {
    if ((visited & 4095) === 0) yield 'pause';
    const f = stack[stack.length - 1];
    const items = f.entries ?? (f.v as unknown[]);
    if (f.i < items.length) {
      const key: Key = f.entries ? f.entries[f.i][0] : f.i;
      const child = f.entries ? f.entries[f.i][1] : items[f.i];
      f.i++;
      chain.push(key);
      const size = open(child, true);
      if (size !== undefined) add(f, chain.pop()!, size);
      continue;
    }
    stack.pop();
    const size = f.entries && f.size === 1 ? 2 : f.size;
    if (!f.entries && f.held && items.length > 1 && (!array || size > array.size)) array = { chain: [...chain], size, value: f.v };
    if (stack.length > 0) add(stack[stack.length - 1], chain.pop()!, size);
  }
  return { array, string };
}

/** A string's length as JSON (quotes and escapes included). */
function jsonStringLength(s: string): number {
  return /["\\\u0000-\u001f\ud800-\udfff]/.test(s) ? JSON.stringify(s).length : s.length + 2;
}

/** The cut's path as reported: `items[3].text`. */
function pathOf(chain: readonly Key[]): string {
  let path = '';
  for (const k of chain) path = typeof k === 'number' ? `${path}[${k}]` : path ? `${path}.${k}` : k;
  return path;
}

/** `root` with `leaf` at `chain`: the containers on the way are copied once (then owned), the rest shared. */
function setIn(root: unknown, chain: readonly Key[], leaf: unknown, owned: WeakSet<object>): unknown {
  const own = (x: object): Record<Key, unknown> => {
    if (owned.has(x)) return x as Record<Key, unknown>;
    const copy = (Array.isArray(x) ? x.slice() : { ...x }) as Record<Key, unknown>;
    owned.add(copy);
    return copy;
  };
  const top = own(root as object);
  let node = top;
  for (let i = 0; i < chain.length - 1; i++) {
    const child = own(node[chain[i]] as object);
    node[chain[i]] = child;
    node = child;
  }
  node[chain[chain.length - 1]] = leaf;
  return top;
}

/** `n` (at least 0), one less when the prefix would end between the halves of a surrogate pair. */
function prefixLength(text: string, n: number): number {
  if (n <= 0) return 0;
  const last = text.charCodeAt(n - 1);
  return last >= 0xd800 && last <= 0xdbff ? n - 1 : n;
}
