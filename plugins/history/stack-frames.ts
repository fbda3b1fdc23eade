/**
 * Stack traces and error output parsed into frames, innermost first: Python, Node/TypeScript (file
 * URLs and bundler source-map URLs such as webpack:// unwrapped), Go, Rust, Java/Kotlin and .NET.
 * Each language has one line pattern; the language whose pattern matches most lines wins unless
 * the caller names it.
 */

/** One frame of a trace. */
export interface Frame {
  path: string;
  line: number | null;
  column: number | null;
  func: string | null;
  /** Java/.NET: the declaring type's qualified name (for package-path matching). */
  qualifiedType?: string;
}

/** A parsed trace. */
export interface ParsedTrace {
  language: string;
  frames: Frame[];
  /** The error line (exception type and message), when one was recognised. */
  message: string | null;
}

export const TRACE_LANGUAGES = ['python', 'node', 'go', 'rust', 'java', 'dotnet'] as const;
export type TraceLanguage = (typeof TRACE_LANGUAGES)[number];

const num = (s: string | undefined) => (s === undefined ? null : Number(s));

/** Strips URL schemes and bundler prefixes from a frame path: file:///a/b → /a/b, webpack://app/./src/x.ts → src/x.ts. */
export function cleanFramePath(p: string): string {
  let out = p.trim();
  out = out.replace(/^file:\/\//, '');
  out = out.replace(/^(webpack|webpack-internal|vite|rollup|turbopack):\/\/\/?[^/]*\//, '');
  out = out.replace(/^(\(\w+\)\/)/, '');
  out = out.replace(/\\/g, '/');
  out = out.replace(/^\.\//, '');
  return out;
}

function python(lines: string[]): ParsedTrace {
  const frames: Frame[] = [];
  let message: string | null = null;
  for (const l of lines) {
    const m = /^\s*File "([^"]+)", line (\d+)(?:, in (\S+))?/.exec(l);
    if (m) frames.push({ path: cleanFramePath(m[1]), line: Number(m[2]), column: null, func: m[3] ?? null });
    else if (/^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b.*$/.test(l.trim())) message = l.trim();
  }
  // Python prints the innermost call last.
  return { language: 'python', frames: frames.reverse(), message };
}

function node(lines: string[]): ParsedTrace {
  const frames: Frame[] = [];
  let message: string | null = null;
  for (const l of lines) {
    const m = /^\s*at (?:async )?(?:(.+?) \()?((?:[a-z-]+:\/\/\/?)?[^\s()]+?):(\d+):(\d+)\)?\s*$/.exec(l);
    if (m) {
      if (m[2].startsWith('node:') || m[2].startsWith('internal/')) continue;
      frames.push({ path: cleanFramePath(m[2]), line: Number(m[3]), column: Number(m[4]), func: m[1] ? m[1].replace(/^(new |Object\.|Module\.)/, '') : null });
    } else if (!message && /^\s*(\w*Error|\w*Exception)\b[:\s]/.test(l)) message = l.trim();
  }
  return { language: 'node', frames, message };
}

/**
 * The function a Go frame's first line names: its arguments dropped, then the last dotted part, so a
 * method's receiver stays out of it: `pkg.(*T).run(0x1, {0x0})` → run, `created by pkg.start in
 * goroutine 7` → start, `main.main.func1()` → func1, `pkg.Map[...](…)` → Map.
 */
function goFunc(line: string): string | null {
  const text = line.trim().replace(/^created by /, '').replace(/ in goroutine \d+$/, '').replace(/\((?:[^()]|\.\.\.)*\)$/, '');
  if (!/^[\w./*()\[\]\-]+$/.test(text)) return null;
  return text.replace(/\[[^\]]*\]/g, '').split('.').pop()!.replace(/[()*]/g, '') || null;
}

function go(lines: string[]): ParsedTrace {
  const frames: Frame[] = [];
  let message: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s+(\S+\.go):(\d+)(?:\s+\+0x[0-9a-f]+)?\s*$/.exec(lines[i]);
    if (m) {
      const func = i > 0 ? goFunc(lines[i - 1]) : null;
      frames.push({ path: cleanFramePath(m[1]), line: Number(m[2]), column: null, func });
    } else if (!message && /^(panic|fatal error):/.test(lines[i])) message = lines[i].trim();
  }
  return { language: 'go', frames, message };
}

function rust(lines: string[]): ParsedTrace {
  const frames: Frame[] = [];
  let message: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const panic = /panicked at (?:'[^']*', )?([^\s:]+\.rs):(\d+):(\d+)/.exec(l);
    if (panic) {
      message = l.trim();
      frames.push({ path: cleanFramePath(panic[1]), line: Number(panic[2]), column: Number(panic[3]), func: null });
      continue;
    }
    const m = /^\s+at (\S+\.rs):(\d+)(?::(\d+))?\s*$/.exec(l);
    if (m) {
      const fn = i > 0 ? /^\s*\d+:\s+(\S+)/.exec(lines[i - 1]) : null;
      const func = fn ? fn[1].replace(/::h[0-9a-f]{16}$/, '').split('::').pop()! : null;
      const f: Frame = { path: cleanFramePath(m[1]), line: Number(m[2]), column: num(m[3]), func };
      // The panic line is also a backtrace frame: keep it once, named by the backtrace.
      const panicFrame = message !== null ? frames[0] : undefined;
      if (panicFrame && panicFrame.path === f.path && panicFrame.line === f.line) panicFrame.func ??= func;
      else frames.push(f);
    }
  }
  return { language: 'rust', frames, message };
}

function java(lines: string[]): ParsedTrace {
  const frames: Frame[] = [];
  let message: string | null = null;
  for (const l of lines) {
    const m = /^\s*at (?:[\w.$/@]+\/\/?)?([\w$.<>]+)\.([\w$<>]+)\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)/.exec(l);
    if (m) frames.push({ path: m[3], line: Number(m[4]), column: null, func: m[2], qualifiedType: m[1] });
    else if (!message && /^(Exception in thread|[\w.$]+(Exception|Error)\b)/.test(l.trim())) message = l.trim();
  }
  return { language: 'java', frames, message };
}

function dotnet(lines: string[]): ParsedTrace {
  const frames: Frame[] = [];
  let message: string | null = null;
  for (const l of lines) {
    const m = /^\s*at ([\w.`<>+]+)\.([\w<>`]+)\(.*?\) in (.+?):line (\d+)\s*$/.exec(l);
    if (m) frames.push({ path: cleanFramePath(m[3].replace(/^[A-Za-z]:/, '')), line: Number(m[4]), column: null, func: m[2], qualifiedType: m[1] });
    else if (!message && /^(Unhandled exception\.|[\w.]+Exception\b)/.test(l.trim())) message = l.trim();
  }
  return { language: 'dotnet', frames, message };
}

const PARSERS: Record<TraceLanguage, (lines: string[]) => ParsedTrace> = { python, node, go, rust, java, dotnet };

/** Source file extensions of each language: a frame in such a file is evidence for it. */
const EXTENSIONS: Record<TraceLanguage, RegExp> = {
  python: /\.pyw?$/,
  node: /\.([cm]?[jt]sx?|vue|svelte)$/,
  go: /\.go$/,
  rust: /\.rs$/,
  java: /\.(java|kt|scala|groovy)$/,
  dotnet: /\.(cs|vb|fs)$/,
};

/** Parses `text` as `language`, or as the language with the most frames in its own kind of file (then the most frames). */
export function parseTrace(text: string, language?: TraceLanguage): ParsedTrace {
  const lines = text.split(/\r?\n/);
  if (language) return PARSERS[language](lines);
  let best: ParsedTrace = { language: 'unknown', frames: [], message: null };
  let bestOwn = -1;
  for (const lang of TRACE_LANGUAGES) {
    const t = PARSERS[lang](lines);
    const own = t.frames.filter((f) => EXTENSIONS[lang].test(f.path)).length;
    if (own > bestOwn || (own === bestOwn && t.frames.length > best.frames.length)) {
      best = t;
      bestOwn = own;
    }
  }
  return best.frames.length ? best : { language: 'unknown', frames: [], message: null };
}
