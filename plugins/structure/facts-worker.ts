/// <reference types="emscripten" preserve="true" />
/** A facts worker: reads, parses and reads the facts of batches of files (file-facts.ts), off the main thread. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { Language, Parser, Query } from 'web-tree-sitter';
import { preloadGrammar, setGrammarLoader } from './code-trees.ts';
import { shapesJob, sketchJob } from './cold-shapes-work.ts';
import { computeFacts } from './file-facts.ts';
import { warmParser } from './parser-warm-up.ts';
import { useRuntimeModule } from './tree-walk.ts';
import type { FactsRequest, FactsResponse, WireFacts } from './facts-pool.ts';

let classKey = '';
let classNames: ReadonlySet<string> = new Set();

let grammars: Record<string, string> = {};
let runtime: Promise<void> | null = null;
/** Emscripten's module object for the runtime: the shape walks read its exports (tree-walk.ts). */
const moduleObject = {};
useRuntimeModule(moduleObject);
setGrammarLoader(async (name) => {
  await (runtime ??= Parser.init(moduleObject as EmscriptenModule));
  const path = grammars[name];
  if (!path) throw new Error(`no grammar path for ${name}`);
  return Language.load(path);
}, () => ({ Parser, Query }));

async function handle(req: FactsRequest): Promise<FactsResponse> {
  grammars = req.grammars;
  if (req.classNames) {
    classNames = new Set(req.classNames);
    classKey = req.classKey;
  } else if (req.classKey !== classKey) return { type: 'error', id: req.id, message: 'class names out of date', stale: true };
  if (req.job === 'sketch' || req.job === 'shapes') {
    // Sketches come before a cold twins' `shapes` job: its grammars load meanwhile, and in one worker
    // its parser gets hot (the optimised WebAssembly is shared by the process's workers).
    if (req.job === 'sketch') {
      for (const language of new Set(req.tasks.map((t) => t.language))) {
        if (req.warmParser) void warmParser(language).catch(() => undefined); // a failure shows again, and is handled, where the grammar is used
        else preloadGrammar(language);
      }
    }
    // The sketch's lexer reads the bytes (no decode); the parser reads text.
    const encoding = req.job === 'sketch' ? null : 'utf8';
    const texts = req.tasks.map((task) => {
      try {
        return readFileSync(join(req.root, task.path), encoding);
      } catch {
        return null; // unreadable or gone: the caller skips it
      }
    });
    const packed = req.job === 'sketch' ? sketchJob(req.tasks, texts) : await shapesJob(req.tasks, texts as (string | null)[]);
    return { type: 'result', id: req.id, facts: [], packed };
  }
  const out: WireFacts[] = [];
  for (const task of req.tasks) {
    try {
      const text = readFileSync(join(req.root, task.path), 'utf8');
      out.push(await computeFacts(task.language, text, task.path, classNames));
    } catch {
      out.push(null); // unreadable or gone: the caller skips it
    }
  }
  return { type: 'result', id: req.id, facts: out };
}

parentPort!.on('message', (req: FactsRequest) => {
  handle(req).then(
    (res) => {
      // A file's definitions share one buffer: each buffer once in the list (a repeat fails the post).
      const transfer = res.type !== 'result' ? [] : res.packed ? [res.packed.buffer as ArrayBuffer] : [...new Set(res.facts.flatMap((f) => (f ? f.defs.map((d) => d.shingles.buffer as ArrayBuffer) : [])))];
      parentPort!.postMessage(res, transfer);
    },
    (err: unknown) => parentPort!.postMessage({ type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) } satisfies FactsResponse),
  );
});
