/**
 * How the command line prints results for a person (a terminal) rather than a program: a verb's
 * JSON result as YAML (multi-line text such as `view`'s file content printed as it is, short lists
 * on one line, the `_m1nd` call metadata left out), an error as its message and hint, and tables
 * with columns sized to their widest cell.
 */
import { Document, isScalar, visit, type Scalar } from 'yaml';

/** Whether the CLI prints for a person: `--json` says no, `--human` yes, otherwise stdout being a terminal. */
export function humanOutput(flags: { json?: unknown; human?: unknown }, stdoutIsTty: boolean | undefined): boolean {
  if (flags.json) return false;
  if (flags.human) return true;
  return stdoutIsTty === true;
}

/** Aligned columns: every column as wide as its widest cell (the last one is not padded). */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((cell, i) => (i === r.length - 1 ? cell : (cell ?? '').padEnd(widths[i]))).join('  ').trimEnd();
  return `${all.map(line).join('\n')}\n`;
}

/** An error result `{ error: { code, message, hint } }` as two or three readable lines. */
function renderError(error: { code?: string; message?: string; hint?: string }): string {
  return `error ${error.code ?? ''}: ${error.message ?? ''}${error.hint ? `\n  hint: ${error.hint}` : ''}\n`;
}

/** A verb's text result for a person: parsed JSON as YAML, or plain text as it is. */
export function renderResultText(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text.endsWith('\n') ? text : `${text}\n`;
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const { _m1nd: _meta, ...rest } = value as Record<string, unknown>;
    const error = (rest as { error?: { code?: string; message?: string; hint?: string } }).error;
    if (error && typeof error === 'object' && Object.keys(rest).length === 1) return renderError(error);
    value = rest;
  }
  if (typeof value === 'string') return value.endsWith('\n') ? value : `${value}\n`;
  const doc = new Document(value);
  // Lists of a few short scalars read better on one line: `lines: [ 1, 40 ]`.
  visit(doc, {
    Seq(_key, node) {
      const items = node.items;
      if (items.length <= 8 && items.every((i) => isScalar(i) && String((i as Scalar).value).length <= 40 && !String((i as Scalar).value).includes('\n'))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, blockQuote: 'literal' });
}
