/**
 * The converters that need an npm package — PDF (`unpdf`), HTML (`turndown`), DOCX (`mammoth`) —
 * as they run inside the conversion worker (worker.ts). Imports nothing of the host, so the worker
 * starts fast; the packages are imported on first use and are optional.
 */

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

function utf8(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
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
    const html = utf8(bytes).replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '');
    return new m.default({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).turndown(html);
  }
  const m = await load<MammothModule>('docx');
  return (await m.default.convertToMarkdown({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value;
}
