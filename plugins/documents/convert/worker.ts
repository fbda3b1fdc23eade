/** A conversion worker: converts the documents runner.ts sends it, one at a time (runner.ts starts it, bounds its heap and time, reuses and ends it). */
import { parentPort } from 'node:worker_threads';
import { convertWithPackage, ProviderMissing, type PackageFormat } from './formats.ts';

export interface ConvertJob {
  format: PackageFormat;
  bytes: Uint8Array;
}

export type ConvertReply = { ready: true } | { ok: true; markdown: string } | { ok: false; missing?: string; message: string };

async function run(job: ConvertJob): Promise<ConvertReply> {
  try {
    return { ok: true, markdown: await convertWithPackage(job.format, job.bytes) };
  } catch (error) {
    return error instanceof ProviderMissing ? { ok: false, missing: error.pkg, message: error.message } : { ok: false, message: (error as Error).message ?? String(error) };
  }
}

parentPort!.on('message', (job: ConvertJob) => void run(job).then((reply) => parentPort!.postMessage(reply)));
// The time limit counts from here: starting the thread (and the TypeScript loader from source) is not the document's doing.
parentPort!.postMessage({ ready: true } satisfies ConvertReply);
