/**
 * Reads one large OTLP JSON file off the main thread (otlp-file.ts starts it): the text, its JSON
 * and the span facts stay in this thread; the facts come back packed as transferred buffers.
 */
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { packSpans, parseOtlpText, readSpans } from './otlp.ts';

parentPort!.once('message', async (file: string) => {
  try {
    const packed = packSpans(await readSpans(await parseOtlpText(await readFile(file, 'utf8'))));
    parentPort!.postMessage({ packed }, [packed.text, packed.lineno, packed.durationMs, packed.error].map((a) => a.buffer as ArrayBuffer));
  } catch (error) {
    parentPort!.postMessage({ error: (error as Error).message });
  }
});
parentPort!.postMessage({ ready: true });
