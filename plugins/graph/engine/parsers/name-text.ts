/** Names read straight from source text, without calling into the tree: call receivers and the last name of a type expression. */

const MAX_RECEIVER = 80;

/** The receiver as written before `.name` / `::name` / `?.name`, separators and generic arguments trimmed, whitespace folded. */
export function receiverText(source: string, start: number, end: number): string {
  let e = end;
  // Only the receiver's head is kept, so a long call chain is not rescanned for each of its calls.
  const limit = Math.min(end, start + MAX_RECEIVER * 4);
  for (;;) {
    while (e > start && source.charCodeAt(e - 1) <= 32) e--;
    const c = source.charCodeAt(e - 1);
    if (e <= start) break;
    if (c === 46 /* . */) {
      e--;
      if (source.charCodeAt(e - 1) === 63 /* ? */) e--;
    } else if (c === 58 /* : */ && source.charCodeAt(e - 2) === 58) {
      e -= 2;
    } else if (c === 62 /* > */ && source.charCodeAt(e - 2) !== 45 /* not -> */) {
      // Explicit generic arguments (`obj.<T>m()`, `Vec::<u8>::new()`) are not part of the receiver.
      let depth = 0;
      let i = e - 1;
      const stop = Math.max(start, e - MAX_RECEIVER * 4);
      for (; i >= stop; i--) {
        const ch = source.charCodeAt(i);
        if (ch === 62) depth++;
        else if (ch === 60 && --depth === 0) break;
      }
      if (i < stop) break;
      e = i;
    } else {
      break;
    }
  }
  let text = source.slice(start, Math.min(e, limit));
  if (/\s/.test(text)) text = text.replace(/\s*\.\s*/g, '.').replace(/\s+/g, ' ');
  if (e <= limit && text.length <= MAX_RECEIVER) return text;
  return `${text.slice(0, MAX_RECEIVER - 1)}…`;
}

/** Last name of a type expression: `pkg.Foo<T>` → `Foo`, `*a::B` → `B`, `Generic[T]` → `Generic`. */
export function lastSegment(text: string): string {
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 60 /* < */ || c === 91 /* [ */ || c === 40 /* ( */) {
      end = i;
      break;
    }
  }
  const head = text.slice(0, end).trim();
  const cut = Math.max(head.lastIndexOf('.'), head.lastIndexOf(':'));
  return head.slice(cut + 1).replace(/^[*&\s]+/, '').trim();
}
