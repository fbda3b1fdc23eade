/**
 * Cuts a result down to the host's result token limit while keeping it valid JSON of the same
 * shape: the largest arrays lose their tail first (they are ranked), then the longest strings
 * are shortened. Array items are never altered, so a result valid against its output schema
 * stays valid (arrays keep at least one item).
 *
 * The result is serialised once here; the text travels with the value so the host sends it as is.
 * It is tokenised only when its UTF-8 length exceeds the limit (see measureText).
 */
import { countTokens, measureText, utf8Bytes } from './tokens.ts';
import type { Truncation } from './call-state.ts';

const STRING_MARK = ' …[cut]';
/** Strings shorter than this are never cut (ids, paths, names): longer ones are cut, the longest first, once no array can lose more. */
const MIN_CUT_STRING = 32;

interface Found<T> {
  path: string;
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: T;
  size: number;
}

function walk(value: unknown, path: string, arrays: Found<unknown[]>[], strings: Found<string>[], holder?: Found<unknown>['holder'], key?: string | number): void {
  if (Array.isArray(value)) {
    if (holder !== undefined && value.length > 1) arrays.push({ path, holder, key: key!, value, size: JSON.stringify(value).length });
    value.forEach((v, i) => walk(v, `${path}[${i}]`, arrays, strings, value, i));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k, arrays, strings, value as Record<string, unknown>, k);
  } else if (typeof value === 'string' && holder !== undefined && value.length > MIN_CUT_STRING) {
    strings.push({ path, holder, key: key!, value, size: value.length });
  }
}

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

/** Returns the value cut to at most `limit` tokens (counted by the real tokenizer when its size says it may exceed them) and what was cut. */
export function shapeToTokenLimit(value: unknown, limit: number, text = serialise(value)): Shaped {
  const first = measureText(text, limit);
  if (first.tokens === undefined || first.tokens <= limit) return { value, text, ...first };
  const original = first.tokens;
  if (typeof value === 'string') return cutString(value, limit, original);
  const cuts = new Map<string, Truncation['cuts'][number]>();
  const copy = structuredClone(value) as Record<string, unknown>;
  let tokens = original;
  let out = text;
  for (let round = 0; round < 200 && tokens > limit; round++) {
    const arrays: Found<unknown[]>[] = [];
    const strings: Found<string>[] = [];
    walk(copy, '', arrays, strings);
    const ratio = (limit / tokens) * 0.9;
    const arr = arrays.sort((a, b) => b.size - a.size)[0];
    if (arr) {
      const before = arr.value.length;
      const keep = Math.max(1, Math.min(before - 1, Math.floor(before * ratio)));
      (arr.holder as Record<string | number, unknown>)[arr.key] = arr.value.slice(0, keep);
      const prev = cuts.get(arr.path);
      const dropped = before - keep + (prev?.dropped ?? 0);
      cuts.set(arr.path, { path: arr.path, kept: keep, dropped });
    } else {
      const str = strings.sort((a, b) => b.size - a.size)[0];
      if (!str) break;
      const keep = prefixLength(str.value, Math.floor(str.value.length * ratio));
      (str.holder as Record<string | number, unknown>)[str.key] = str.value.slice(0, keep) + STRING_MARK;
      const prev = cuts.get(str.path);
      cuts.set(str.path, { path: str.path, chars_cut: str.value.length - keep + (prev?.chars_cut ?? 0) });
    }
    out = JSON.stringify(copy);
    tokens = countTokens(out);
  }
  return { value: copy, text: out, bytes: utf8Bytes(out), tokens, truncation: { original_tokens: original, limit, cuts: [...cuts.values()] } };
}

function cutString(value: string, limit: number, original: number): Shaped {
  let text = value;
  let tokens = original;
  let out = value;
  while (tokens > limit && text.length > 0) {
    text = text.slice(0, prefixLength(text, Math.floor(text.length * (limit / tokens) * 0.95)));
    out = text + STRING_MARK;
    tokens = countTokens(out);
  }
  return { value: out, text: out, bytes: utf8Bytes(out), tokens, truncation: { original_tokens: original, limit, cuts: [{ path: '$', chars_cut: value.length - text.length }] } };
}

/** `n` (at least 0), one less when the prefix would end between the halves of a surrogate pair. */
function prefixLength(text: string, n: number): number {
  if (n <= 0) return 0;
  const last = text.charCodeAt(n - 1);
  return last >= 0xd800 && last <= 0xdbff ? n - 1 : n;
}
