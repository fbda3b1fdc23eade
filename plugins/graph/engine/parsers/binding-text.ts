/**
 * Compact text of what a binding holds, as the name resolver reads it: a value with call
 * arguments, literal bodies and strings elided (`r.NewRoute().Methods()`, `&Route{}`), and a type
 * with whitespace folded. The resolver parses these small strings instead of the tree.
 */

const MAX_VALUE = 160;
const MAX_TYPE = 120;
const WORD = /[\w$]/;

/** A value expression with bracket contents and string literals elided, whitespace folded; '' when too long. */
export function valueText(text: string): string {
  let out = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' || ch === "'" || ch === '`') {
      i = skipString(text, i);
      if (depth === 0) out += '""';
      continue;
    }
    if (ch === '(' && depth === 0 && out.endsWith('.')) {
      // A Go type assertion `x.(*Foo)` keeps its type: it is what the value becomes.
      const close = text.indexOf(')', i);
      if (close > i) {
        out += text.slice(i, close + 1).replace(/\s+/g, '');
        i = close;
        continue;
      }
    }
    if (ch === '(' || ch === '[' || ch === '{') {
      if (depth === 0) out += ch;
      depth++;
      continue;
    }
    if (ch === ')' || ch === ']' || ch === '}') {
      depth = Math.max(0, depth - 1);
      if (depth === 0) out += ch;
      continue;
    }
    if (depth > 0) continue;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\\') {
      // Keep one space only where it separates two words (`new Foo`, `await x`).
      const next = text.slice(i + 1).trimStart()[0] ?? '';
      if (WORD.test(out[out.length - 1] ?? '') && WORD.test(next)) out += ' ';
      continue;
    }
    out += ch;
    if (out.length > MAX_VALUE) return '';
  }
  return out;
}

/** A type expression with whitespace folded; '' when too long to be a plain type. */
export function typeText(text: string): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > MAX_TYPE ? '' : folded;
}

/** Index of the closing quote of the string starting at `start` (Python triple quotes included). */
function skipString(text: string, start: number): number {
  const q = text[start];
  const triple = text.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  for (let i = start + close.length; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
      continue;
    }
    if (text.startsWith(close, i)) return i + close.length - 1;
  }
  return text.length;
}
