/**
 * Document converters: each turns a source format into canonical Markdown. Markdown, reStructuredText
 * and plain text are built in; PDF (`unpdf`), HTML (`turndown`) and DOCX (`mammoth`) are optional npm
 * packages, imported on first use only, so a workspace without them loses those formats and nothing
 * else. Nothing is fetched from the network.
 */
import { readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { rstToMarkdown } from './rst.ts';

/** A converter: the formats it reads and how. */
export interface Converter {
  name: string;
  /** File extensions, lower case with the dot. */
  extensions: readonly string[];
  /** The npm package it needs; absent for built-ins. */
  package?: string;
  convert(bytes: Buffer): Promise<string>;
}

type PdfModule = { getDocumentProxy(data: Uint8Array): Promise<unknown>; extractText(pdf: unknown, o: { mergePages: false }): Promise<{ text: string[] }> };
type TurndownModule = { default: new (o: Record<string, string>) => { turndown(html: string): string } };
type MammothModule = { default: { convertToMarkdown(input: { buffer: Buffer }): Promise<{ value: string }> } };

const loaded = new Map<string, Promise<unknown>>();
/** Imports an optional package once; PROVIDER_MISSING names the install command when it is absent. */
async function optional<T>(pkg: string, format: string): Promise<T> {
  let p = loaded.get(pkg);
  if (!p) {
    p = import(pkg);
    loaded.set(pkg, p);
    p.catch(() => loaded.delete(pkg));
  }
  try {
    return (await p) as T;
  } catch (error) {
    throw new M1ndError(ErrorCodes.DOCUMENT_PROVIDER_MISSING, `${format} documents need the npm package ${pkg}, which is not installed (${(error as Error).message.split('\n')[0]})`, {
      hint: `run "npm install ${pkg}" in the m1nd installation, then retry; document_provider_health lists every converter`,
      data: { package: pkg },
    });
  }
}

function utf8(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export const CONVERTERS: readonly Converter[] = [
  { name: 'markdown', extensions: ['.md', '.markdown', '.mdx'], convert: async (b) => utf8(b) },
  { name: 'restructuredtext', extensions: ['.rst'], convert: async (b) => rstToMarkdown(utf8(b)) },
  { name: 'text', extensions: ['.txt', '.text'], convert: async (b) => utf8(b) },
  {
    name: 'pdf',
    extensions: ['.pdf'],
    package: 'unpdf',
    async convert(bytes) {
      const m = await optional<PdfModule>('unpdf', 'PDF');
      const pdf = await m.getDocumentProxy(new Uint8Array(bytes));
      const { text } = await m.extractText(pdf, { mergePages: false });
      return text.map((page, i) => `## Page ${i + 1}\n\n${page.trim()}\n`).join('\n');
    },
  },
  {
    name: 'html',
    extensions: ['.html', '.htm', '.xhtml'],
    package: 'turndown',
    async convert(bytes) {
      const m = await optional<TurndownModule>('turndown', 'HTML');
      // Scripts and styles are not prose; turndown would otherwise keep their text.
      const html = utf8(bytes).replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '');
      return new m.default({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).turndown(html);
    },
  },
  {
    name: 'docx',
    extensions: ['.docx'],
    package: 'mammoth',
    async convert(bytes) {
      const m = await optional<MammothModule>('mammoth', 'DOCX');
      return (await m.default.convertToMarkdown({ buffer: bytes })).value;
    },
  },
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
