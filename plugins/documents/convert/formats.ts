/**
 * The converters that need an npm package — PDF (`unpdf`), HTML (`turndown`), DOCX (`mammoth`) —
 * as they run inside the conversion worker (worker.ts). Imports nothing of the host, so the worker
 * starts fast; the packages are imported on first use and are optional.
 */
import { decodeText } from './text-decode.ts';

export type PackageFormat = 'pdf' | 'html' | 'docx';

/** The npm package each format needs. */
export const PACKAGE_OF: Readonly<Record<PackageFormat, string>> = { pdf: 'unpdf', html: 'turndown', docx: 'mammoth' };

/** Thrown when the format's package cannot be imported. */
export class ProviderMissing extends Error {
  constructor(
    readonly pkg: string,
    message: string,
  ) {
    super(message);
  }
}

type PdfModule = { getDocumentProxy(data: Uint8Array): Promise<unknown>; extractText(pdf: unknown, o: { mergePages: false }): Promise<{ text: string[] }> };
type TurndownModule = { default: new (o: Record<string, string>) => { turndown(html: string): string } };
type MammothModule = { default: { convertToMarkdown(input: { buffer: Buffer }): Promise<{ value: string }> } };

async function load<T>(format: PackageFormat): Promise<T> {
  const pkg = PACKAGE_OF[format];
  try {
    return (await import(pkg)) as T;
  } catch (error) {
    throw new ProviderMissing(pkg, (error as Error).message.split('\n')[0]);
  }
}

/** Converts a document of a package format to Markdown. */
export async function convertWithPackage(format: PackageFormat, bytes: Uint8Array): Promise<string> {
  if (format === 'pdf') {
    const m = await load<PdfModule>('pdf');
    const pdf = await m.getDocumentProxy(bytes);
    const { text } = await m.extractText(pdf, { mergePages: false });
    return text.map((page, i) => `## Page ${i + 1}\n\n${page.trim()}\n`).join('\n');
  }
  if (format === 'html') {
    const m = await load<TurndownModule>('html');
    // Scripts and styles are not prose; turndown would otherwise keep their text.
    const html = withTitleHeading(decodeText(bytes).replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ''));
    return new m.default({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).turndown(html);
  }
  const m = await load<MammothModule>('docx');
  return (await m.default.convertToMarkdown({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value;
}

/** Characters of a `<title>` read at most. */
const MAX_TITLE_CHARS = 1000;

/**
 * The page's `<title>` is metadata, not body text (turndown would keep it as a leading paragraph):
 * it is dropped, and becomes the page's `<h1>` only when the body has none. Turndown decodes its entities.
 */
function withTitleHeading(html: string): string {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  // Only the head's (an SVG's <title> in the body is the body's).
  const bodyAt = html.search(/<body\b/i);
  if (!title || (bodyAt >= 0 && title.index > bodyAt)) return html;
  const rest = html.slice(0, title.index) + html.slice(title.index + title[0].length);
  const text = title[1].replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS);
  if (!text || /<h1[\s>]/i.test(rest)) return rest;
  // At the body's start (else after the head, else first).
  const body = /<body\b[^>]*>/i.exec(rest) ?? /<\/head\s*>/i.exec(rest);
  const at = body ? body.index + body[0].length : 0;
  return `${rest.slice(0, at)}<h1>${text}</h1>${rest.slice(at)}`;
}
