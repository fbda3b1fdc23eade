/** Exact-match hunks: each `old_text` must occur exactly once in the current text; applied in order. */
import { ErrorCodes, M1ndError } from '../../core/index.ts';

export interface Hunk {
  old_text: string;
  new_text: string;
}

/** Applies hunks in order; EDIT_HUNK_MISMATCH (naming the hunk and its match count) when one is not unique. */
export function applyHunks(text: string, hunks: readonly Hunk[], filePath: string): string {
  let out = text;
  hunks.forEach((h, i) => {
    const at = h.old_text === '' ? -1 : out.indexOf(h.old_text);
    const again = at < 0 ? -1 : out.indexOf(h.old_text, at + 1);
    if (at < 0 || again >= 0) {
      let count = 0;
      for (let k = h.old_text === '' ? -1 : out.indexOf(h.old_text); k >= 0; k = out.indexOf(h.old_text, k + 1)) count++;
      throw new M1ndError(ErrorCodes.EDIT_HUNK_MISMATCH, `hunk ${i} old_text matches ${count} places in ${filePath} (after the hunks before it); it must match exactly one`, {
        hint: count === 0 ? 're-read the file (surgical_context) and copy old_text exactly, whitespace included' : 'add surrounding lines to old_text until it is unique',
        data: { hunk: i, matches: count },
      });
    }
    out = out.slice(0, at) + h.new_text + out.slice(at + h.old_text.length);
  });
  return out;
}
