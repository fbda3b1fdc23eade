/**
 * Markdown extraction, line-based (no grammar): ATX headings become `section` symbols named by their
 * heading chain (`Intro.Setup`) and spanning up to the next heading of the same or a higher level; the
 * first paragraph under a heading is its doc. Outside fenced code blocks, inline links give `link`
 * doc links (relative targets only, `#fragment` and `?query` dropped), and backticked spans give
 * `code_path` (`src/a.ts`, `package.json`) or `code_symbol` (`activate`, `Foo.bar()` → `Foo.bar`).
 * Links before the first heading belong to section ''. A setext heading (a one-line paragraph over a
 * line of `=` or `-`) is a level 1 or 2 heading; YAML front matter is skipped. Indented code is not read.
 */
import type { ExtractedDocLink, ExtractedSymbol, FileExtraction } from '../extraction.ts';
import { MAX_DOC } from './doc-text.ts';

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** Lines that cannot be a setext heading's text: list items, quotes, tables, indented code, thematic breaks. */
const NOT_SETEXT_TEXT = /^(?: {4}|\t| {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|\||[-*_](?:[ \t]*[-*_]){2,}[ \t]*$))/;
const CODE_SPAN = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
const INLINE_LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const REFERENCE_DEF = /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const PATH_CHARS = /^(?:\.{1,2}\/|\/)?[\w@.+-]+(?:\/[\w@.+-]+)*\/?$/;
const FILE_EXTENSION = /\.(?:[cm]?[jt]sx?|py[i]?|rs|go|java|kt|rb|c|h|cc|cpp|hpp|cs|php|swift|md|markdown|json|jsonc|ya?ml|toml|ini|cfg|txt|sh|bash|html|css|scss|sql|proto|lock|xml|gradle|env)$/i;
const SYMBOL = /^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$/;

interface OpenSection {
  level: number;
  symbol: ExtractedSymbol;
  /** Lines of the first paragraph while it is being read; null once done. */
  doc: string[] | null;
}

/** Extracts sections and doc links from a Markdown file. */
export function extractMarkdown(path: string, rawSource: string): FileExtraction {
  const source = rawSource.charCodeAt(0) === 0xfeff ? rawSource.slice(1) : rawSource;
  const lines = source.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const symbols: ExtractedSymbol[] = [];
  const docLinks: ExtractedDocLink[] = [];
  const stack: OpenSection[] = [];
  const taken = new Map<string, number>();
  let fence: { char: string; length: number } | null = null;

  const close = (section: OpenSection, endLine: number): void => {
    section.symbol.endLine = Math.max(section.symbol.startLine, endLine);
    finishDoc(section);
  };
  const textOf = (i: number): string => (lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i]);
  /** Opens a section at `lineNo`, closing those of the same or a deeper level. */
  const open = (level: number, title: string, lineNo: number): void => {
    while (stack.length > 0 && stack[stack.length - 1].level >= level) close(stack.pop()!, lineNo - 1);
    const outer = stack.length > 0 ? stack[stack.length - 1] : undefined;
    if (outer !== undefined) finishDoc(outer);
    let qualifiedName = outer === undefined ? title : `${outer.symbol.qualifiedName}.${title}`;
    const count = taken.get(qualifiedName) ?? 0;
    taken.set(qualifiedName, count + 1);
    if (count > 0) qualifiedName = `${qualifiedName}#${count + 1}`;
    const symbol: ExtractedSymbol = { kind: 'section', name: title, qualifiedName, startLine: lineNo, endLine: lineNo };
    if (outer !== undefined) symbol.parent = outer.symbol.qualifiedName;
    symbols.push(symbol);
    stack.push({ level, symbol, doc: [] });
  };
  /** The index of the line just read when it starts a paragraph (a setext underline below makes it a heading), else -1. */
  let paragraphStart = -1;

  let first = 0;
  if (lines.length > 0 && textOf(0) === '---') {
    const end = lines.findIndex((l, i) => i > 0 && /^(?:---|\.\.\.)\r?$/.test(l));
    if (end > 0) first = end + 1;
  }
  for (let i = first; i < lines.length; i++) {
    const line = textOf(i);
    const lineNo = i + 1;
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      if (fenceMatch !== null && fenceMatch[1][0] === fence.char && fenceMatch[1].length >= fence.length && fenceMatch[2].trim() === '') fence = null;
      continue;
    }
    if (fenceMatch !== null && !(fenceMatch[1][0] === '`' && fenceMatch[2].includes('`'))) {
      fence = { char: fenceMatch[1][0], length: fenceMatch[1].length };
      if (stack.length > 0) finishDoc(stack[stack.length - 1]);
      continue;
    }
    const heading = HEADING.exec(line);
    const title = heading === null ? '' : headingText(heading[2] ?? '');
    const setext = paragraphStart === i - 1 ? SETEXT.exec(line) : null;
    const setextTitle = setext === null ? '' : headingText(textOf(i - 1).trim());
    const blank = line.trim() === '';
    paragraphStart = !blank && heading === null && (i === first || textOf(i - 1).trim() === '') && !NOT_SETEXT_TEXT.test(line) ? i : -1;
    if (heading !== null && title !== '') {
      open(heading[1].length, title, lineNo);
    } else if (setext !== null && setextTitle !== '') {
      // The text line was read as the enclosing section's paragraph: it is this heading's own line.
      const top = stack.length > 0 ? stack[stack.length - 1] : undefined;
      if (top?.doc?.at(-1) === textOf(i - 1).trim()) top.doc.pop();
      open(setext[1][0] === '=' ? 1 : 2, setextTitle, lineNo - 1);
      const section = stack[stack.length - 1].symbol.qualifiedName;
      for (const link of docLinks) if (link.line === lineNo - 1) link.section = section;
      continue;
    } else if (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.doc !== null) {
        if (REFERENCE_DEF.test(line)) finishDoc(top);
        else if (line.trim() !== '') top.doc.push(line.trim());
        else if (top.doc.length > 0) finishDoc(top);
      }
    }
    const section = stack.length > 0 ? stack[stack.length - 1].symbol.qualifiedName : '';
    scanLine(line, lineNo, section, docLinks);
  }
  while (stack.length > 0) close(stack.pop()!, lines.length);

  return {
    path,
    language: 'markdown',
    loc: lines.length,
    symbols,
    imports: [],
    calls: [],
    inherits: [],
    references: [],
    docLinks,
    parseErrors: 0,
  };
}

function finishDoc(section: OpenSection): void {
  const doc = section.doc;
  if (doc === null) return;
  section.doc = null;
  if (doc.length === 0) return;
  const text = doc
    .join(' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ');
  section.symbol.doc = text.length <= MAX_DOC ? text : `${text.slice(0, MAX_DOC - 1)}…`;
}

/** Heading text without inline markup: link text instead of links, no backticks or emphasis markers. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function scanLine(line: string, lineNo: number, section: string, out: ExtractedDocLink[]): void {
  if (line.includes('`')) {
    for (const m of line.matchAll(CODE_SPAN)) {
      const code = m[2].trim();
      if (code.length < 2 || /\s/.test(code)) continue;
      if (PATH_CHARS.test(code) && !SCHEME.test(code) && (code.includes('/') || FILE_EXTENSION.test(code))) {
        out.push({ section, target: code, kind: 'code_path', line: lineNo });
      } else if (SYMBOL.test(code)) {
        out.push({ section, target: code.replace(/\(\)$/, ''), kind: 'code_symbol', line: lineNo });
      }
    }
    // Brackets inside code spans are not links.
    line = line.replace(CODE_SPAN, (span) => ' '.repeat(span.length));
  }
  if (!line.includes('](') && !line.includes(']:')) return;
  const reference = REFERENCE_DEF.exec(line);
  if (reference !== null) pushLink(reference[1], lineNo, section, out);
  for (const m of line.matchAll(INLINE_LINK)) pushLink(m[1], lineNo, section, out);
}

function pushLink(raw: string, lineNo: number, section: string, out: ExtractedDocLink[]): void {
  if (SCHEME.test(raw) || raw.startsWith('#') || raw.startsWith('//')) return;
  const target = raw.replace(/[?#].*$/, '');
  if (target !== '') out.push({ section, target, kind: 'link', line: lineNo });
}
