/**
 * What a document's Markdown names of the code, read deterministically: code spans (a path, a
 * command, a symbol, a symbol in its file: `src/a.ts#helper`), shell lines in fenced blocks
 * (`$ npm test`), and in prose paths with an extension (with `#name` after one, the symbol in it),
 * calls (`computeTotal()`) and code-shaped identifiers (`parseConfig`, `retry_policy`,
 * `Cart.checkout`). Each mention carries its evidence strength; prose identifiers count only when
 * the graph knows them.
 */

/** How a mention was written, strongest first. */
export type Evidence = 'code_span' | 'shell' | 'link' | 'call' | 'path' | 'prose_command' | 'identifier';

export interface Mention {
  text: string;
  kind: 'path' | 'symbol' | 'command';
  evidence: Evidence;
  line: number;
  section: string;
}

/** Mentions read per document at most. */
export const MAX_MENTIONS = 5000;

const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A code span; a backtick escaped by a backslash (`\``, as converters write a typed backtick) opens none, as in CommonMark. */
const CODE_SPAN = /(?<=(?:^|[^\\])(?:\\\\)*)(`+)([^`]+?)\1(?!`)/g;
const FILE_EXT = /\.(?:[cm]?[jt]sx?|py|rs|go|java|kt|rb|c|h|cc|cpp|hpp|cs|php|swift|mdx?|markdown|rst|json|ya?ml|toml|ini|cfg|txt|sh|html|css|sql|proto|xml|gradle)$/i;
const PATH_TOKEN = /(?<![\w/.-])(?:\.{1,2}\/)?[\w@.-]+(?:\/[\w@.-]+)*\.[A-Za-z]{1,5}(?![\w/])/g;
const SYMBOL = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$/;
/** A code span that is a call with arguments (`AsyncClient.send(request, ...)`, `httpx.get(url)`): its callee. */
const SYMBOL_CALL = /^([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)$/;
/** Keywords of the languages m1nd reads: a code span of one names syntax, not a symbol. */
const KEYWORDS = new Set([
  'async', 'await', 'def', 'class', 'return', 'yield', 'import', 'from', 'lambda', 'with', 'as', 'pass', 'raise', 'try', 'except',
  'finally', 'global', 'nonlocal', 'None', 'True', 'False', 'self', 'cls', 'null', 'undefined', 'true', 'false', 'this', 'super',
  'const', 'let', 'var', 'function', 'new', 'typeof', 'instanceof', 'void', 'static', 'public', 'private', 'protected', 'interface',
  'extends', 'implements', 'export', 'default', 'throw', 'throws', 'catch', 'func', 'go', 'defer', 'chan', 'struct', 'impl', 'fn',
  'mut', 'pub', 'match', 'enum', 'trait', 'type', 'nil', 'if', 'else', 'elif', 'for', 'while', 'break', 'continue', 'in', 'is', 'not',
  'and', 'or', 'del', 'assert', 'switch', 'case', 'do', 'goto', 'package', 'final', 'abstract', 'synchronized',
]);
const CALL_TOKEN = /(?<![\w.$])([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)\(\)/g;
const IDENT_TOKEN = /(?<![\w.$/-])([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)(?![\w$(/-])/g;
const PROSE_COMMAND = /\b(?:npm|yarn|pnpm|bun) (?:run [\w:.-]+|test|start|build)\b|\bmake [\w.-]+\b(?= |$|[.,;])/g;
/** A file named without an extension that workspaces keep by that name (`Makefile`, `docker/Dockerfile`). */
const NAMED_FILE = /^(?:[\w@.-]+\/)*(?:Makefile|GNUmakefile|makefile|Dockerfile|Containerfile|Justfile|justfile|Rakefile|Gemfile|Procfile|Vagrantfile|Jenkinsfile|Brewfile|Pipfile|CODEOWNERS)$/;
/** A symbol qualified by its file: `src/a.ts#helper`, `src/a.ts:helper`, `tests/t.py::test_x`, `src/a.ts#Cart.checkout()`. */
const FILE_SYMBOL = /^((?:\.{1,2}\/)?[\w@.-]+(?:\/[\w@.-]+)*\.[A-Za-z]{1,5})(?:#|::?)([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)(?:\(\))?$/;
/** The same right after a prose path (its path is PATH_TOKEN's match). */
const FILE_SYMBOL_TAIL = /^(?:#|::?)([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)/;
/** A path with a line anchor (`src/a.ts#L42`, `src/a.ts#L3-L9`): it names the file, not a symbol `L42`. */
const LINE_ANCHORED = /^([^\s#]+)#L\d+(?:-L?\d+)?$/;
/** Documents: a `#` after one of them is an anchor, not a symbol. */
const DOCUMENT_EXT = /\.(?:md|markdown|mdx|rst|txt|text|html?|xhtml|pdf|docx)$/i;
/** An MDX page's ESM import of a workspace file (`import { X } from '../src/x'`, `import T from './_t.mdx'`). */
const IMPORT_BARE = /^import\s+(['"])(\.{1,2}\/[^'"]+)\1;?\s*$/;
/**
 * The `from '…'` ending an import line, and the head before it (checked apart): one pattern with both
 * (`^import\s+(?:[\w$*{}\s,]+\s+from\s+)?['"]…`) backtracked over its overlapping spaces, so a line of
 * `import` and 10,000 spaces took 5 minutes.
 */
const FROM_TAIL = /(?:^|[\s}])from\s+(['"])([^'"]+)\1;?\s*$/;

/** The relative source of a one-line ESM import (`import { X } from '../src/x'`, `import './y.css'`), or undefined. */
function importSource(line: string): string | undefined {
  if (!line.startsWith('import')) return undefined;
  const bare = IMPORT_BARE.exec(line);
  if (bare) return bare[2];
  const from = FROM_TAIL.exec(line);
  if (!from || !/^\.{1,2}\//.test(from[2])) return undefined;
  const head = line.slice(0, from.index + (from[0].startsWith('from') ? 0 : 1));
  return /^import\s+[\w$*{}][\w$*{}\s,]*$/.test(head) ? from[2] : undefined;
}

/** The source named by the line that closes an import over several lines (`} from './x'`), or undefined. */
function importClosing(line: string): string | undefined {
  const from = FROM_TAIL.exec(line);
  if (!from) return undefined;
  const head = line.slice(0, from.index + (from[0].startsWith('from') ? 0 : 1));
  return /^[\w$,\s]*(?:\}\s*)?$/.test(head) ? from[2] : undefined;
}
/**
 * A Markdown link or image: its text and its target (`<…>` and a title allowed). Linear in the line:
 * the text and the target hold no bracket (nor the target a parenthesis), the spaces and the target
 * are matched once (`(?=(…))\N`, an atomic group), the title is bounded: with plain quantifiers a line
 * of `[a](` and 40,000 spaces took 1.3 s, and 40,000 `[` 1.4 s.
 */
const LINK = /(!?)\[([^[\]]{0,1000})\]\((?=(\s*))\3<?(?=([^()[\]\s<>]{0,2048}))\4>?(?:\s{1,64}["'(][^)]{0,256})?\)/g;
/** A link target with a scheme (`https:`, `mailto:`) or from the host root: a page outside the workspace. */
const OUTSIDE_TARGET = /^(?:[a-z][\w+.-]*:|\/)/i;
const COMMAND = /^(?:npm|npx|yarn|pnpm|bun|node|deno|make|cargo|go|python3?|pip|pytest|uv|poetry|mvn|gradle|\.\/[\w./-]+|bash|sh)(?:\s|$)/;

/** Whether a prose word looks like code rather than English: camelCase, snake_case or dotted. */
export function codeShaped(word: string): boolean {
  if (word.length < 4) return false;
  if (/[.:]/.test(word)) return /^[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+$/.test(word) && !/^(?:e\.g|i\.e)$/i.test(word);
  return /_/.test(word.replace(/^_+|_+$/g, '')) || /[a-z][A-Z]/.test(word) || /^[A-Z][a-z]+[A-Z]/.test(word);
}

/** The mentions of a Markdown text, in document order, at most MAX_MENTIONS. */
export function readMentions(markdown: string): Mention[] {
  const out: Mention[] = [];
  const lines = markdown.split('\n');
  const chain: string[] = [];
  let fence: string | null = null;
  let importing = false;
  for (let i = 0; i < lines.length && out.length < MAX_MENTIONS; i++) {
    const line = lines[i].replace(/\r$/, '');
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      else {
        const shell = /^\s*\$\s+(.+)$/.exec(line);
        if (shell) out.push({ text: shell[1].trim(), kind: 'command', evidence: 'shell', line: i + 1, section: chain.join('.') });
      }
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    // An import over several lines (`import {` … `} from './x'`): its names are no prose; its source is the mention.
    if (importing && line.trim() !== '') {
      const from = importClosing(line);
      if (from === undefined) continue;
      importing = false;
      if (/^\.{1,2}\//.test(from)) out.push({ text: normalizePath(from), kind: 'path', evidence: 'link', line: i + 1, section: chain.join('.') });
      continue;
    }
    importing = false;
    if (/^import\s+(?:type\s+)?\{[^'"}]*$/.test(line)) {
      importing = true;
      continue;
    }
    const imported = importSource(line);
    if (imported) {
      out.push({ text: normalizePath(imported), kind: 'path', evidence: 'link', line: i + 1, section: chain.join('.') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      chain.length = Math.min(chain.length, heading[1].length - 1);
      chain.push(heading[2].replace(/[`*]/g, ''));
    }
    const section = chain.join('.');
    const push = (text: string, kind: Mention['kind'], evidence: Evidence) => out.push({ text, kind, evidence, line: i + 1, section });
    // Code spans first; their text is then blanked so prose scanning does not read it twice.
    const taken = new Set<string>();
    // Where a prose `path#name` put its name: calls and identifiers starting there are that mention's.
    const named = new Set<number>();
    const prose = line.replace(CODE_SPAN, (_all, ticks: string, body: string) => {
      const text = body.trim();
      const qualified = fileSymbol(text);
      const anchored = LINE_ANCHORED.exec(text)?.[1];
      if (COMMAND.test(text) && /\s/.test(text)) push(text, 'command', 'code_span');
      else if ((FILE_EXT.test(text) || NAMED_FILE.test(text)) && !/\s/.test(text)) {
        // A bare extension (`.js`) names a kind of file, not one.
        if (!/^\.\w+$/.test(text)) push(normalizePath(text), 'path', 'code_span');
      }
      else if (qualified) push(qualified.text, 'symbol', 'code_span');
      else if (anchored && FILE_EXT.test(anchored)) push(normalizePath(anchored), 'path', 'code_span');
      else if (SYMBOL.test(text)) {
        if (!KEYWORDS.has(text)) push(text.replace(/\(\)$/, ''), 'symbol', 'code_span');
      } else {
        // A call with arguments names its callee when that is code-shaped (`len(x)` names a builtin, not the workspace).
        const callee = SYMBOL_CALL.exec(text)?.[1];
        if (callee && (/[.:#]/.test(callee) || codeShaped(callee))) push(callee, 'symbol', 'code_span');
      }
      return ' '.repeat(ticks.length * 2 + body.length);
    });
    // A link names its target when that is a workspace file (its text, often the file's name, is not read again);
    // the text of a link to an outside page names what is there.
    const delinked = prose.replace(LINK, (all: string, _bang: string, label: string, _spaces: string, target: string) => {
      if (OUTSIDE_TARGET.test(target)) return ' '.repeat(all.length);
      const file = safeDecode(target.replace(/[?#].*$/, ''));
      if (file && (FILE_EXT.test(file) || NAMED_FILE.test(file))) {
        push(normalizePath(file), 'path', 'link');
        return ' '.repeat(all.length);
      }
      return `[${label}]`;
    });
    // Converters escape Markdown punctuation in prose (add\(\), snake\_case); read it unescaped.
    const text = delinked.replace(/\\([\\`*_{}[\]()#+\-.!<>|~])/g, '$1');
    for (const m of text.matchAll(PROSE_COMMAND)) {
      taken.add(m[0]);
      push(m[0], 'command', 'prose_command');
    }
    for (const m of text.matchAll(PATH_TOKEN)) {
      if (!m[0].includes('/') && !FILE_EXT.test(m[0])) continue;
      if (!FILE_EXT.test(m[0]) || /^\d/.test(m[0]) || /^www\./.test(m[0])) continue;
      taken.add(m[0]);
      // A path with a symbol after it (`src/a.ts#helper`) names that symbol in that file.
      let tail = DOCUMENT_EXT.test(m[0]) ? null : FILE_SYMBOL_TAIL.exec(text.slice(m.index + m[0].length));
      if (tail && /^L\d+$/.test(tail[1])) tail = null;
      if (tail) {
        named.add(m.index + m[0].length + tail[0].length - tail[1].length);
        push(normalizePath(m[0]) + tail[0], 'symbol', 'path');
      } else push(normalizePath(m[0]), 'path', 'path');
    }
    for (const m of text.matchAll(CALL_TOKEN)) {
      if (named.has(m.index)) continue;
      taken.add(m[1]);
      push(m[1], 'symbol', 'call');
    }
    for (const m of text.matchAll(IDENT_TOKEN)) {
      const word = m[1].replace(/\.$/, '');
      if (named.has(m.index)) continue;
      if (taken.has(word) || [...taken].some((t) => t.includes(word)) || !codeShaped(word)) continue;
      taken.add(word);
      push(word, 'symbol', 'identifier');
    }
  }
  return out.slice(0, MAX_MENTIONS);
}

/**
 * A symbol qualified by its file, split: the file (as written, `./` dropped), the name in it, and the
 * mention text (`src/a.ts#helper`; a trailing `()` dropped). Null for anything else, and for a
 * document's anchor (`docs/guide.md#setup`).
 */
export function fileSymbol(text: string): { file: string; name: string; text: string } | null {
  const m = FILE_SYMBOL.exec(text);
  if (!m || !FILE_EXT.test(m[1]) || DOCUMENT_EXT.test(m[1]) || /^L\d+$/.test(m[2])) return null;
  const file = normalizePath(m[1]);
  return { file, name: m[2], text: file + text.slice(m[1].length).replace(/\(\)$/, '') };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function normalizePath(text: string): string {
  return text.replace(/^\.\//, '');
}
