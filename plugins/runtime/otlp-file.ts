/**
 * An OTLP JSON file's span facts. A small file is parsed here in slices that yield; a large one
 * (over OFF_THREAD_BYTES, where one JSON object alone would hold the loop for ~100 ms per 25 MB) is
 * read, parsed and reduced to facts in a worker thread, whose packed columns are rebuilt here in
 * slices.
 */
import { readFile } from 'node:fs/promises';
import { spawnEngineWorker, yieldToLoop } from '../graph/api.ts';
import { parseOtlpText, readSpans, unpackSpans, type PackedSpans, type ReadSpans } from './otlp.ts';

/** Files larger than this are read in a worker thread. */
export const OFF_THREAD_BYTES = 1024 * 1024;
/** The worker's heap at most: a 64 MB export's objects fit several times over. */
const WORKER_HEAP_MB = 2048;

/** Thrown when the file is no OTLP JSON (the message says where). */
export class OtlpSyntaxError extends Error {}

export async function readOtlpFile(absolute: string, size: number): Promise<ReadSpans> {
  if (size <= OFF_THREAD_BYTES) {
    let objects: unknown[];
    try {
      objects = await parseOtlpText(await readFile(absolute, 'utf8'), yieldToLoop);
    } catch (error) {
      throw new OtlpSyntaxError((error as Error).message);
    }
    return readSpans(objects, yieldToLoop);
  }
  const worker = spawnEngineWorker(import.meta.url, './otlp-worker.ts', { maxOldGenerationSizeMb: WORKER_HEAP_MB });
  try {
    const reply = await new Promise<{ packed?: PackedSpans; error?: string }>((resolve, reject) => {
      worker.on('message', (m: { ready?: true; packed?: PackedSpans; error?: string }) => (m.ready ? worker.postMessage(absolute) : resolve(m)));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the OTLP reader thread exited (${code}) before answering`)));
    });
    if (reply.error !== undefined) throw new OtlpSyntaxError(reply.error);
    return unpackSpans(reply.packed!, yieldToLoop);
  } finally {
    await worker.terminate();
  }
}
