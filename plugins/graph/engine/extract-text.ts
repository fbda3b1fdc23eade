/**
 * Extracting a text that is not the file on disk (an edit's proposed text, an older revision), where
 * an ingest would parse it: on the main thread when that is short work, else in a parse worker. A
 * text of MAIN_THREAD_MAX_BYTES or more parses ~0.5 ms per KiB in one call, which would hold every
 * session's loop; so does a language's first extractor here unless made in slices (`extractorSliced`).
 * A worker's start-up (0.2–0.9 s when none runs) is paid by this call alone.
 */
import type { FileExtraction, Language } from './extraction.ts';
import { MAIN_THREAD_MAX_BYTES } from './ingest-parse.ts';
import { sharedParsePool } from './parse-pool/pool.ts';
import { extractorBetweenRequests, type SourceParser } from './source-parser.ts';

/** Where the parse workers are, for a text that must not parse on the main thread. */
export interface TextWorkers {
  root: string;
  /** Pool size (0: none; the text parses here). */
  workers: number;
  nice?: number;
}

/** Whether extracting `text` on this thread is short work: the language's extractor held already and the text small. */
export function extractsHere(parser: SourceParser, language: Language, text: string): boolean {
  if (!parser.parallel || parser.ready === undefined) return true; // an injected parser runs in-process only
  return parser.ready(language) && Buffer.byteLength(text, 'utf8') < MAIN_THREAD_MAX_BYTES;
}

/** The extraction of `text` as the file `path` of `language`. */
export async function extractText(parser: SourceParser, path: string, text: string, language: Language, at: TextWorkers): Promise<FileExtraction> {
  if (at.workers > 0 && !extractsHere(parser, language, text)) {
    try {
      const task = { path, language, size: Buffer.byteLength(text, 'utf8'), mtimeMs: 0, sameKey: null, content: text };
      const { outcomes } = await sharedParsePool(at.workers, at.nice).parse(at.root, parser.version, [task], { text: false });
      const out = outcomes[0];
      if (out?.kind === 'parsed') return out.extraction;
      // Skipped by the content rules (minified, generated): parsed here as the caller asked.
    } catch {
      // A worker failed or cannot start here: parsed on this thread.
    }
  }
  return (await extractorBetweenRequests(parser, language))(path, text);
}
