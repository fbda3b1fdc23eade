/**
 * A source text with its comments blanked (each comment character a space, line breaks kept, so
 * offsets and line numbers stay), for the pattern readings of routes (http-routes.ts, http-mounts.ts):
 * a registration commented out (`// app.get('/orders/:id', oldGetOrder)`) serves nothing.
 *
 * One pass, no parse: `#` comments for Python; `//` and `/* … *\/` for the C-like languages. String
 * literals are skipped (`'http://x'` holds no comment): a quoted one ends at its line's end at the
 * latest (a quote misread costs one line, not the rest of the file), a backtick one (a template, a Go
 * raw string) at its closing backtick; JavaScript regex literals after an operator are skipped too.
 */

const SLASH = 47;
const STAR = 42;
const HASH = 35;
const NL = 10;
const BACKSLASH = 92;
const BACKTICK = 96;
/** Characters after which a `/` starts a JavaScript regex literal, not a division. */
const BEFORE_REGEX = new Set('(,=:[!&|?{};+-*%<>~^'.split('').map((c) => c.charCodeAt(0)));
const PYTHON = /\.py$/;
const JS = /\.[cm]?[jt]sx?$/;

let last: { file: string; text: string; code: string } | undefined;

/** `text` with its comments blanked (the same text when it has none); the last answer is kept (routes, mounts and requests read one file in turn). */
export function blankComments(file: string, text: string): string {
  if (last?.text === text && last.file === file) return last.code;
  const code = blank(file, text);
  last = { file, text, code };
  return code;
}

function blank(file: string, text: string): string {
  const python = PYTHON.test(file);
  if (python ? !text.includes('#') : !text.includes('/*') && !text.includes('//')) return text;
  const js = JS.test(file);
  // The text's UTF-16 units, copied on the first comment and blanked in place (a slice and a blank string per comment took 0.2–0.5 s for 1 MB of comments).
  let units: Uint16Array | undefined;
  let buffer: Buffer | undefined;
  const blankRange = (from: number, to: number) => {
    if (!units) {
      buffer = Buffer.alloc(text.length * 2);
      buffer.write(text, 0, 'utf16le');
      units = new Uint16Array(buffer.buffer, buffer.byteOffset, text.length);
    }
    for (let k = from; k < to; k++) if (units[k] !== NL) units[k] = 32;
  };
  /** The last character that is no space, for telling a regex literal from a division. */
  let previous = NL;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKTICK) {
      // A template (Go: raw string) spans lines, to its closing backtick; a `${…}` in it to its closing brace.
      let j = i + 1;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === BACKSLASH) j++;
        else if (d === BACKTICK) break;
        else if (d === 36 && text.charCodeAt(j + 1) === 123) {
          let depth = 0;
          for (j++; j < n; j++) {
            const e = text.charCodeAt(j);
            if (e === 123) depth++;
            else if (e === 125 && --depth === 0) break;
          }
        }
      }
      i = Math.min(j, n - 1);
      previous = c;
      continue;
    }
    if (c === 34 || c === 39) {
      // A string: to its closing quote, or the line's end.
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== c && text.charCodeAt(j) !== NL) j += text.charCodeAt(j) === BACKSLASH ? 2 : 1;
      i = Math.min(j, n - 1);
      previous = c;
      continue;
    }
    if (python) {
      if (c === HASH) {
        const end = text.indexOf('\n', i);
        blankRange(i, end < 0 ? n : end);
        i = end < 0 ? n : end;
        previous = NL;
        continue;
      }
    } else if (c === SLASH) {
      const next = text.charCodeAt(i + 1);
      if (next === SLASH) {
        const end = text.indexOf('\n', i);
        blankRange(i, end < 0 ? n : end);
        i = end < 0 ? n : end;
        previous = NL;
        continue;
      }
      if (next === STAR) {
        const end = text.indexOf('*/', i + 2);
        blankRange(i, end < 0 ? n : end + 2);
        i = end < 0 ? n : end + 1;
        continue;
      }
      if (js && (BEFORE_REGEX.has(previous) || previous === NL)) {
        // A regex literal: to its closing `/` (a class `[…]` may hold one), or the line's end.
        let j = i + 1;
        let inClass = false;
        for (; j < n; j++) {
          const d = text.charCodeAt(j);
          if (d === NL) break;
          if (d === BACKSLASH) j++;
          else if (d === 91) inClass = true;
          else if (d === 93) inClass = false;
          else if (d === SLASH && !inClass) break;
        }
        i = Math.min(j, n - 1);
        previous = SLASH;
        continue;
      }
    }
    if (c !== 32 && c !== 9 && c !== 13) previous = c;
  }
  return buffer ? buffer.toString('utf16le') : text;
}
