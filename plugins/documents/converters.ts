/**
 * Document converters: each turns a source format into canonical Markdown. Markdown, reStructuredText
 * and plain text are built in; PDF (`unpdf`), HTML (`turndown`) and DOCX (`mammoth`) are optional npm
 * packages, imported on first use only, in a worker thread per conversion (convert/runner.ts), so a
 * workspace without them loses those formats and nothing else, and a big document never blocks
 * other calls. Nothing is fetched from the network.
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_OF } from './convert/formats.ts';
import { decodeText } from './convert/text-decode.ts';
import { convertInWorker } from './convert/runner.ts';
import { rstToMarkdown } from './rst.ts';

/** A converter: the formats it reads and how. */
export interface Converter {
  name: string;
  /** File extensions, lower case with the dot. */
  extensions: readonly string[];
  /** The npm package it needs; absent for built-ins. */
  package?: string;
  /** How m1nd drives it (1 when absent): raised when the same bytes now convert differently, so older artefacts are converted again. */
  revision?: number;
  convert(bytes: Buffer, signal?: AbortSignal): Promise<string>;
}

export const CONVERTERS: readonly Converter[] = [
  // Revision 2 of the text formats (3 of HTML): UTF-16 with a BOM is decoded (it was read as UTF-8, a NUL every other character).
  { name: 'markdown', extensions: ['.md', '.markdown', '.mdx'], revision: 2, convert: async (b) => decodeText(b) },
  { name: 'restructuredtext', extensions: ['.rst'], revision: 2, convert: async (b) => rstToMarkdown(decodeText(b)) },
  { name: 'text', extensions: ['.txt', '.text'], revision: 2, convert: async (b) => decodeText(b) },
  // The package formats run in a worker thread with a time and heap limit (convert/runner.ts).
  { name: 'pdf', extensions: ['.pdf'], package: PACKAGE_OF.pdf, convert: (b, signal) => convertInWorker('pdf', 'PDF', b, signal) },
  // Revision 2: the head's <title> is no longer body text; 3: UTF-16 with a BOM is decoded.
  { name: 'html', extensions: ['.html', '.htm', '.xhtml'], package: PACKAGE_OF.html, revision: 3, convert: (b, signal) => convertInWorker('html', 'HTML', b, signal) },
  { name: 'docx', extensions: ['.docx'], package: PACKAGE_OF.docx, convert: (b, signal) => convertInWorker('docx', 'DOCX', b, signal) },
];

/** The converter for a path by its extension, or null. */
export function converterFor(path: string): Converter | null {
  const ext = extname(path).toLowerCase();
  return CONVERTERS.find((c) => c.extensions.includes(ext)) ?? null;
}

/** Every extension some converter reads. */
export const DOCUMENT_EXTENSIONS: readonly string[] = CONVERTERS.flatMap((c) => c.extensions);

/** Whether an optional package resolves from here, and its version, without importing it. */
export function probePackage(pkg: string): { installed: boolean; version?: string; error?: string } {
  let entry: string;
  try {
    entry = fileURLToPath(import.meta.resolve(pkg));
  } catch (error) {
    return { installed: false, error: (error as Error).message.split('\n')[0] };
  }
  // The version is in the nearest package.json naming the package above its entry file.
  for (let dir = dirname(entry), i = 0; i < 8 && dir !== dirname(dir); dir = dirname(dir), i++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === pkg) return { installed: true, version: manifest.version };
    } catch {
      // no manifest at this level
    }
  }
  return { installed: true };
}

/** The producer string recorded with an artefact: converter name and package version. */
export function producerOf(c: Converter): string {
  if (!c.package) return `m1nd:${c.name}`;
  const probe = probePackage(c.package);
  return `${c.package}@${probe.version ?? 'unknown'}`;
}
