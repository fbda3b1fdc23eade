/** The conversion worker: one document per worker (runner.ts starts it, bounds its heap and time, and ends it). */
import { parentPort, workerData } from 'node:worker_threads';
import { convertWithPackage, ProviderMissing, type PackageFormat } from './formats.ts';

export interface ConvertJob {
  format: PackageFormat;
  bytes: Uint8Array;
}

export type ConvertReply = { ready: true } | { ok: true; markdown: string } | { ok: false; missing?: string; message: string };

const job = workerData as ConvertJob;
async function run(): Promise<ConvertReply> {
  try {
    return { ok: true, markdown: await convertWithPackage(job.format, job.bytes) };
  } catch (error) {
    return error instanceof ProviderMissing ? { ok: false, missing: error.pkg, message: error.message } : { ok: false, message: (error as Error).message ?? String(error) };
  }
}
// The time limit counts from here: starting the thread (and the TypeScript loader from source) is not the document's doing.
parentPort!.postMessage({ ready: true } satisfies ConvertReply);
void run().then((reply) => parentPort!.postMessage(reply));
