/**
 * A parse worker: loads the default tree-sitter parsers once (each grammar on first use) and answers
 * batches of files with their rows and extractions.
 */
import { readlinkSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { Language } from '../extraction.ts';
import { wasmMemoryBytes } from '../parsers/tree-sitter.ts';
import { loadDefaultParser, type FileExtractor } from '../source-parser.ts';
import { ExtensionRunner } from '../parse-extensions.ts';
import { failureMessage, parseFile, toWire, type WireOutcome } from './parse-file.ts';
import type { ParseRequest, ParseResponse } from './protocol.ts';

const extractors = new Map<Language, FileExtractor>();
// Loaded at start, not on the first batch: a pool warmed before the walk is ready when files come.
const parser = loadDefaultParser();
parser.catch(() => undefined); // a failure surfaces on the first batch
/** Fault injection for tests: this worker exits after answering that many batches. */
const exitAfter = Number(process.env.M1ND_TEST_PARSE_WORKER_EXIT_AFTER ?? 0);
let answered = 0;
/** This thread's id (Linux), so the pool can read its priority; undefined elsewhere. */
const tid = ((): number | undefined => {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
})();

let runners: { key: string; runner: Promise<ExtensionRunner> } | null = null;
function runnerOf(specs: NonNullable<ParseRequest['extensions']>): Promise<ExtensionRunner> {
  const key = JSON.stringify(specs);
  if (runners?.key !== key) runners = { key, runner: ExtensionRunner.load(specs) };
  return runners.runner;
}

async function handle(req: ParseRequest): Promise<ParseResponse> {
  const extractorOf = await parser;
  const times = { read: 0, parse: 0 };
  const runner = req.extensions?.length ? await runnerOf(req.extensions) : null;
  const outcomes: WireOutcome[] = [];
  for (const task of req.tasks) {
    let extract = extractors.get(task.language);
    if (!extract) {
      try {
        extractors.set(task.language, (extract = await extractorOf.extractorFor(task.language)));
      } catch (e) {
        // As in-process: a grammar that fails to load makes its files parse failures.
        outcomes.push({ kind: 'skip', reason: 'parse_failed', error: failureMessage(e, task.language) });
        continue;
      }
    }
    outcomes.push(toWire(parseFile(req.root, task, req.parserVersion, extract, times, runner), req.light === true, req.noText !== true));
  }
  return { type: 'result', id: req.id, outcomes, read: times.read, parse: times.parse, heap: getHeapStatistics().total_physical_size, wasm: wasmMemoryBytes(), ...(tid !== undefined ? { tid } : {}) };
}

parentPort!.on('message', (req: ParseRequest) => {
  handle(req).then(
    (res) => {
      parentPort!.postMessage(res);
      if (exitAfter > 0 && ++answered >= exitAfter) process.exit(70);
    },
    (err: unknown) => parentPort!.postMessage({ type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) } satisfies ParseResponse),
  );
});
