/**
 * reStructuredText to Markdown, for what bindings need: section titles (underlined, optionally
 * overlined; levels in order of first appearance, as docutils assigns them), literal blocks after
 * `::`, inline literals and interpreted-text roles (``x``, :func:`x`) as code spans. Directives other
 * than code blocks are kept as their text.
 */
const ADORNMENT = /^([=\-`:'"~^_*+#<>.])\1{2,}\s*$/;
const ROLE = /:(?:py:)?(?:func|meth|class|mod|attr|obj|data|const|exc|file|command|program|ref|doc|term)?:`([^`]+)`/g;

/** Converts reStructuredText to Markdown. */
export function rstToMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const levels: string[] = [];
  const out: string[] = [];
  let literal = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (literal) {
      if (line.trim() === '' || /^\s/.test(line)) {
        out.push(line.replace(/^ {1,4}|^\t/, ''));
        continue;
      }
      out.push('```');
      literal = false;
    }
    const next = lines[i + 1] ?? '';
    // Overlined title: adornment, title, same adornment.
    if (ADORNMENT.test(line) && lines[i + 2] !== undefined && ADORNMENT.test(lines[i + 2]) && lines[i + 1].trim() !== '') {
      out.push(heading(`o${line.trim()[0]}`, lines[i + 1].trim(), levels));
      i += 2;
      continue;
    }
    if (line.trim() !== '' && !/^\s/.test(line) && ADORNMENT.test(next) && next.trim().length >= line.trim().length) {
      out.push(heading(next.trim()[0], line.trim(), levels));
      i += 1;
      continue;
    }
    const code = /^\.\.\s+(?:code-block|code|sourcecode)::\s*(\S*)/.exec(line);
    if (code) {
      out.push('```' + code[1]);
      literal = true;
      // Skip directive options (":linenos:") and the blank line after them.
      while (i + 1 < lines.length && /^\s+:\w[\w-]*:/.test(lines[i + 1])) i++;
      continue;
    }
    if (/::\s*$/.test(line)) {
      const text = line.replace(/\s*::\s*$/, line.trim() === '::' ? '' : ':');
      if (text) out.push(inline(text));
      out.push('```');
      literal = true;
      continue;
    }
    out.push(inline(line));
  }
  if (literal) out.push('```');
  return out.join('\n');
}

function heading(style: string, title: string, levels: string[]): string {
  let level = levels.indexOf(style);
  if (level < 0) level = levels.push(style) - 1;
  return `${'#'.repeat(Math.min(6, level + 1))} ${inline(title)}`;
}

function inline(text: string): string {
  return text.replace(/``([^`]+)``/g, '`$1`').replace(ROLE, '`$1`');
}
