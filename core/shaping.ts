/**
 * Cuts a result down to the host's result token limit while keeping it valid JSON of the same
 * shape: the largest arrays lose their tail first (they are ranked), then the longest strings
 * are shortened. Array items are never altered, so a result valid against its output schema
 * stays valid (arrays keep at least one item).
 */
import { countValueTokens } from './tokens.ts';
import type { Truncation } from './call-state.ts';

const STRING_MARK = ' …[cut]';

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
  } else if (typeof value === 'string' && holder !== undefined && value.length > 200) {
    strings.push({ path, holder, key: key!, value, size: value.length });
  }
}

/** Returns the value cut to at most `limit` tokens (counted by the real tokenizer) and what was cut. */
export function shapeToTokenLimit(value: unknown, limit: number): { value: unknown; tokens: number; truncation?: Truncation } {
  let tokens = countValueTokens(value);
  if (tokens <= limit) return { value, tokens };
  const original = tokens;
  const cuts = new Map<string, Truncation['cuts'][number]>();
  if (typeof value === 'string') {
    let text = value;
    while (tokens > limit && text.length > 0) {
      text = text.slice(0, Math.floor(text.length * (limit / tokens) * 0.95));
      tokens = countValueTokens(text + STRING_MARK);
    }
    const out = text + STRING_MARK;
    return { value: out, tokens, truncation: { original_tokens: original, limit, cuts: [{ path: '$', chars_cut: value.length - text.length }] } };
  }
  const copy = structuredClone(value) as Record<string, unknown>;
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
      const keep = Math.max(0, Math.floor(str.value.length * ratio));
      (str.holder as Record<string | number, unknown>)[str.key] = str.value.slice(0, keep) + STRING_MARK;
      const prev = cuts.get(str.path);
      cuts.set(str.path, { path: str.path, chars_cut: str.value.length - keep + (prev?.chars_cut ?? 0) });
    }
    tokens = countValueTokens(copy);
  }
  return { value: copy, tokens, truncation: { original_tokens: original, limit, cuts: [...cuts.values()] } };
}
