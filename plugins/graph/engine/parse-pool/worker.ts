/**
 * A parse worker: loads the default tree-sitter parsers once (each grammar on first use) and answers
 * batches of files with their rows and extractions.
 */
import { parentPort } from 'node:worker_threads';
import type { Language } from '../extraction.ts';
import { loadDefaultParser, type FileExtractor } from '../source-parser.ts';
import { parseFile, toWire, type WireOutcome } from './parse-file.ts';
import type { ParseRequest, ParseResponse } from './protocol.ts';

const extractors = new Map<Language, FileExtractor>();

async function handle(req: ParseRequest): Promise<ParseResponse> {
  const parser = await loadDefaultParser();
  const times = { read: 0, parse: 0 };
  const outcomes: WireOutcome[] = [];
  for (const task of req.tasks) {
    let extract = extractors.get(task.language);
    if (!extract) {
      try {
        extractors.set(task.language, (extract = await parser.extractorFor(task.language)));
      } catch {
        // As in-process: a grammar that fails to load makes its files parse failures.
        outcomes.push({ kind: 'skip', reason: 'parse_failed' });
        continue;
      }
    }
    outcomes.push(toWire(parseFile(req.root, task, req.parserVersion, extract, times)));
  }
  return { type: 'result', id: req.id, outcomes, read: times.read, parse: times.parse };
}

parentPort!.on('message', (req: ParseRequest) => {
  handle(req).then(
    (res) => parentPort!.postMessage(res),
    (err: unknown) => parentPort!.postMessage({ type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) } satisfies ParseResponse),
  );
});
