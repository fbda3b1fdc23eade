/**
 * Runs a package conversion (PDF, HTML, DOCX) in a worker thread of its own, so a big or hostile
 * document never holds the event loop other sessions need: the worker gets a bounded heap, the
 * call a time limit (the worker is terminated past it), and the Markdown a size limit. The
 * worker starts from source through the TypeScript loader the host runs under (tsx), or from
 * the built .js.
 */
import { Worker } from 'node:worker_threads';
import { ErrorCodes, M1ndError } from '../../../core/index.ts';
import type { PackageFormat } from './formats.ts';
import type { ConvertJob, ConvertReply } from './worker.ts';

export interface ConversionLimits {
  /** Wall time a conversion may take. */
  timeoutMs: number;
  /** Old-generation heap of the worker. */
  maxHeapMb: number;
}

export const DEFAULT_LIMITS: ConversionLimits = { timeoutMs: 60_000, maxHeapMb: 1024 };
/** Time a worker may take to start (before the conversion's own limit starts counting). */
const START_LIMIT_MS = 30_000;

let limits: ConversionLimits = { ...DEFAULT_LIMITS };

/** Sets the limits (the documents plugin's options). */
export function setConversionLimits(next: Partial<ConversionLimits>): void {
  limits = { ...DEFAULT_LIMITS, ...next };
}

/** The limits in force. */
export function conversionLimits(): Readonly<ConversionLimits> {
  return limits;
}

function spawn(job: ConvertJob): Worker {
  const fromSource = new URL(import.meta.url).pathname.endsWith('.ts'); // a host may add a ?query for hot reload
  const entry = new URL(fromSource ? './worker.ts' : './worker.js', import.meta.url).href;
  const code = fromSource
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`
    : `import(${JSON.stringify(entry)});`;
  return new Worker(code, { eval: true, workerData: job, resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb } });
}

/** Converts in a worker thread; PROVIDER_MISSING, or CONVERT_FAILED on an error, the time limit or the heap limit. */
export async function convertInWorker(format: PackageFormat, label: string, bytes: Uint8Array, signal?: AbortSignal): Promise<string> {
  const { timeoutMs, maxHeapMb } = limits;
  const worker = spawn({ format, bytes });
  const started = performance.now();
  try {
    const reply = await new Promise<Exclude<ConvertReply, { ready: true }>>((resolve, reject) => {
      const overtime = (ms: number, what: string, hint: string) => () => reject(new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: ${what} took longer than ${ms} ms and was stopped`, { hint, data: { timeout_ms: ms } }));
      let timer = setTimeout(overtime(START_LIMIT_MS, 'starting the converter', 'the machine is overloaded; retry later'), START_LIMIT_MS);
      const abort = () => reject(new M1ndError(ErrorCodes.CALL_CANCELLED, `${label}: conversion cancelled`, { hint: 'call again to convert it' }));
      signal?.addEventListener('abort', abort, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
      };
      worker.on('message', (r: ConvertReply) => {
        if ('ready' in r) {
          clearTimeout(timer);
          timer = setTimeout(overtime(timeoutMs, 'converting', 'split the document, convert it to Markdown yourself, or raise the documents plugin option convertTimeoutMs'), timeoutMs);
          return;
        }
        done();
        resolve(r);
      });
      worker.once('error', (error: Error & { code?: string }) => {
        done();
        const heap = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
        reject(new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, heap ? `${label}: converting needed more than ${maxHeapMb} MB and was stopped` : `${label}: ${error.message}`, {
          hint: heap ? 'split the document or convert it to Markdown yourself' : 'check the file opens in its own application; a damaged or encrypted file cannot be converted',
        }));
      });
      worker.once('exit', (code) => {
        done();
        reject(new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: the conversion worker exited (${code}) after ${Math.round(performance.now() - started)} ms`, { hint: 'retry; if it repeats, the document is too large or damaged' }));
      });
    });
    if (reply.ok) return reply.markdown;
    if (reply.missing) {
      throw new M1ndError(ErrorCodes.DOCUMENT_PROVIDER_MISSING, `${label} needs the npm package ${reply.missing}, which is not installed (${reply.message})`, {
        hint: `run "npm install ${reply.missing}" in the m1nd installation, then retry; document_provider_health lists every converter`,
        data: { package: reply.missing },
      });
    }
    throw new M1ndError(ErrorCodes.DOCUMENT_CONVERT_FAILED, `${label}: ${reply.message}`, { hint: 'check the file opens in its own application; a damaged or encrypted file cannot be converted' });
  } finally {
    await worker.terminate();
  }
}
