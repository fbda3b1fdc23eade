/**
 * Reading, hashing, classifying and parsing one file: the per-file work of an ingest, shared by the
 * in-process path and the parse workers so both produce the same rows and extractions.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Tree } from 'web-tree-sitter';
import type { FileExtraction, Language } from '../extraction.ts';
import type { FileExtractor } from '../source-parser.ts';
import type { FileRow } from '../store.ts';
import { lightExtraction } from '../store-files.ts';
import { classifyContent } from '../content-class.ts';
import type { SkipReason } from '../walk.ts';
import type { ExtensionResult, ExtensionRunner } from '../parse-extensions.ts';

/** One file to read and parse. */
export interface ParseTask {
  /** Workspace-relative path. */
  path: string;
  language: Language;
  size: number;
  mtimeMs: number;
  /** The stored extraction key when an unchanged hash may skip the parse (incremental runs), else null. */
  sameKey: string | null;
  /** The text to parse instead of the file's (a proposed edit, an older revision): nothing is read. */
  content?: string;
}

/** What became of one file. */
export type ParseOutcome =
  /** `error`: why a parse failed (the extractor's or the grammar loader's message), for the ingest summary. */
  | { kind: 'skip'; reason: SkipReason; error?: string }
  | { kind: 'same' }
  | {
      kind: 'parsed';
      row: FileRow;
      /** The whole extraction (parsed from `json` on first read when the outcome came with `light`). */
      extraction: FileExtraction;
      text: string;
      /** The extraction as JSON, when it came so from a worker (the store writes it as is). */
      json?: string;
      /** Its light copy (store-files.ts `lightExtraction`), when the parse was asked for one: all a streamed build reads before linking. */
      light?: FileExtraction;
      /** Parse extensions' results (parse-extensions.ts), when any ran. */
      ext?: ExtensionResult[];
    };

/**
 * A parse outcome as a worker sends it: the extraction as JSON (one string clones far cheaper than
 * an object tree) and, when asked, its light copy as JSON too, so the main thread of a streamed
 * ingest parses only the light part (the store takes the whole JSON as is).
 */
export type WireOutcome = Exclude<ParseOutcome, { kind: 'parsed' }> | { kind: 'parsed'; row: FileRow; json: string; text: string; light?: string; ext?: ExtensionResult[] };

/** The wire form of an outcome (in the worker); `light` adds the light copy's JSON; `text` false sends '' for the text. */
export function toWire(o: ParseOutcome, light = false, text = true): WireOutcome {
  if (o.kind !== 'parsed') return o;
  const json = JSON.stringify(o.extraction);
  const t = text ? o.text : '';
  const ext = o.ext ? { ext: o.ext } : {};
  return light ? { kind: 'parsed', row: o.row, json, text: t, light: JSON.stringify(lightExtraction(o.extraction)), ...ext } : { kind: 'parsed', row: o.row, json, text: t, ...ext };
}

/** An outcome back from its wire form (on the main thread); with a light copy, the whole extraction is parsed only if read. */
export function fromWire(o: WireOutcome): ParseOutcome {
  if (o.kind !== 'parsed') return o;
  const json = o.json;
  const ext = o.ext ? { ext: o.ext } : {};
  if (o.light === undefined) return { kind: 'parsed', row: o.row, extraction: JSON.parse(json) as FileExtraction, text: o.text, json, ...ext };
  let whole: FileExtraction | undefined;
  return {
    kind: 'parsed',
    row: o.row,
    text: o.text,
    json,
    ...ext,
    light: JSON.parse(o.light) as FileExtraction,
    get extraction(): FileExtraction {
      return (whole ??= JSON.parse(json) as FileExtraction);
    },
  };
}

/** Milliseconds spent reading (with hashing) and parsing, added to by `parseFile`. */
export interface ParseTimes {
  read: number;
  parse: number;
}

/** Key of a stored extraction: language, parser version and content hash. */
export function extractionKey(language: Language, parserVersion: string, hash: string): string {
  return `${language}:${parserVersion}:${hash}`;
}

/** Reads one file, hashes it, and parses it unless its content is unchanged or disqualified; `extensions` run on its tree. */
export function parseFile(root: string, task: ParseTask, parserVersion: string, extract: FileExtractor, times: ParseTimes, extensions?: ExtensionRunner | null): ParseOutcome {
  let t = performance.now();
  let bytes: Buffer;
  try {
    bytes = task.content !== undefined ? Buffer.from(task.content, 'utf8') : readFileSync(join(root, task.path));
  } catch {
    times.read += performance.now() - t;
    return { kind: 'skip', reason: 'unreadable' };
  }
  const hash = createHash('sha1').update(bytes).digest('hex');
  const key = extractionKey(task.language, parserVersion, hash);
  if (task.sameKey === key) {
    times.read += performance.now() - t;
    return { kind: 'same' };
  }
  const binary = bytes.subarray(0, 8000).includes(0);
  const text = binary ? '' : bytes.toString('utf8');
  const reason = classifyContent(task.path, bytes, binary ? null : text);
  times.read += performance.now() - t;
  if (reason) return { kind: 'skip', reason };
  t = performance.now();
  try {
    let ext: ExtensionResult[] | undefined;
    const onTree = extensions?.wants(task.language) ? (tree: Tree, source: string) => void (ext = extensions.run(tree, source, text, task.language, task.path)) : undefined;
    const extraction = extract(task.path, text, onTree);
    extraction.path = task.path;
    const row: FileRow = {
      path: task.path,
      hash,
      size: task.size,
      mtimeMs: task.mtimeMs,
      language: task.language,
      loc: extraction.loc,
      parseErrors: extraction.parseErrors,
      extractionKey: key,
    };
    return ext ? { kind: 'parsed', row, extraction, text, ext } : { kind: 'parsed', row, extraction, text };
  } catch (e) {
    return { kind: 'skip', reason: 'parse_failed', error: failureMessage(e) };
  } finally {
    times.parse += performance.now() - t;
  }
}

/** Characters of an error message a skipped file keeps. */
const MAX_ERROR_CHARS = 200;

/** A parse failure's message, bounded, for the ingest summary (`grammar` names a grammar that did not load). */
export function failureMessage(e: unknown, grammar?: string): string {
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').trim() || (e instanceof Error ? e.name : 'unknown error');
  const text = grammar ? `the ${grammar} grammar did not load: ${message}` : message;
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
