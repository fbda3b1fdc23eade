/** Warnings when new content changes a file's line endings or byte-order mark (kept as the agent gave them). */

function lineEnding(text: string): 'crlf' | 'lf' | 'mixed' | 'none' {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length - crlf;
  if (crlf === 0 && lf === 0) return 'none';
  if (crlf && lf) return 'mixed';
  return crlf ? 'crlf' : 'lf';
}

/** What differs between the original and the new content in line endings and BOM. */
export function textWarnings(oldText: string | null, newText: string): string[] {
  if (oldText === null) return [];
  const out: string[] = [];
  const before = lineEnding(oldText);
  const after = lineEnding(newText);
  if (before !== 'none' && after !== 'none' && before !== after) out.push(`line endings change from ${before} to ${after}`);
  const bomBefore = oldText.startsWith('\uFEFF');
  const bomAfter = newText.startsWith('\uFEFF');
  if (bomBefore !== bomAfter) out.push(bomBefore ? 'the byte-order mark (BOM) is removed' : 'a byte-order mark (BOM) is added');
  return out;
}
