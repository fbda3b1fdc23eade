/**
 * Reading, hashing, classifying and parsing one file: the per-file work of an ingest, shared by the
 * in-process path and the parse workers so both produce the same rows and extractions.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileExtraction, Language } from '../extraction.ts';
import type { FileExtractor } from '../source-parser.ts';
import type { FileRow } from '../store.ts';
import { classifyContent } from '../content-class.ts';
import type { SkipReason } from '../walk.ts';

/** One file to read and parse. */
export interface ParseTask {
  /** Workspace-relative path. */
  path: string;
  language: Language;
  size: number;
  mtimeMs: number;
  /** The stored extraction key when an unchanged hash may skip the parse (incremental runs), else null. */
  sameKey: string | null;
}

/** What became of one file. */
export type ParseOutcome =
  | { kind: 'skip'; reason: SkipReason }
  | { kind: 'same' }
  | { kind: 'parsed'; row: FileRow; extraction: FileExtraction; text: string; /** The extraction as JSON, when it came so from a worker (the store writes it as is). */ json?: string };

/** A parse outcome as a worker sends it: the extraction as JSON (one string clones far cheaper than an object tree). */
export type WireOutcome = Exclude<ParseOutcome, { kind: 'parsed' }> | { kind: 'parsed'; row: FileRow; json: string; text: string };

/** The wire form of an outcome (in the worker). */
export function toWire(o: ParseOutcome): WireOutcome {
  return o.kind === 'parsed' ? { kind: 'parsed', row: o.row, json: JSON.stringify(o.extraction), text: o.text } : o;
}

/** An outcome back from its wire form (on the main thread). */
export function fromWire(o: WireOutcome): ParseOutcome {
  if (o.kind !== 'parsed') return o;
  const extraction = JSON.parse(o.json) as FileExtraction;
  return { kind: 'parsed', row: o.row, extraction, text: o.text, json: o.json };
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

/** Reads one file, hashes it, and parses it unless its content is unchanged or disqualified. */
export function parseFile(root: string, task: ParseTask, parserVersion: string, extract: FileExtractor, times: ParseTimes): ParseOutcome {
  let t = performance.now();
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(root, task.path));
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
    const extraction = extract(task.path, text);
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
    return { kind: 'parsed', row, extraction, text };
  } catch {
    return { kind: 'skip', reason: 'parse_failed' };
  } finally {
    times.parse += performance.now() - t;
  }
}
