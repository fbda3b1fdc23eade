/**
 * Builds the seek index in a worker thread (lexical-worker.ts): the main thread only copies its node
 * slots over in chunks and, at the end, decodes the returned index bytes, both in slices of about
 * `sliceMs`. A build of 270K nodes (~16 s of CPU) then costs the main thread well under a second, the
 * event loop stays free, and the file texts the build reads stay in the worker, which exits after it.
 */
import type { Worker } from 'node:worker_threads';
import { spawnEngineWorker } from './engine-worker.ts';
import type { CodeGraph, GraphNode } from './graph.ts';
import type { BaseIndex } from './lexical-build.ts';
import { decodeIndexBytes } from './lexical-persist.ts';
import type { BuildRequest, BuildResponse } from './lexical-protocol.ts';
import type { FieldName } from './lexical-text.ts';

/** Node slots copied per message. */
const CHUNK = 2048;

/** A build handed back by the worker: the index and the index file's bytes (to write as they are). */
export interface OffThreadBuild {
  base: BaseIndex;
  bytes: Buffer;
}

/** The fields a build reads of a node (lexical-text.ts, the slot hash), and nothing else. */
function slim(n: GraphNode): GraphNode {
  const out: GraphNode = { id: n.id, kind: n.kind, label: n.label, path: n.path, startLine: n.startLine, endLine: n.endLine, language: n.language };
  if (n.qualifiedName !== undefined) out.qualifiedName = n.qualifiedName;
  if (n.doc !== undefined) out.doc = n.doc;
  if (n.text !== undefined) out.text = n.text;
  if (n.isTest !== undefined) out.isTest = n.isTest;
  return out;
}

const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A full build of `graph` made in a worker, keyed by `key`; null when the graph changed meanwhile
 * (the caller starts again) or `wanted()` turned false. Throws when the worker fails.
 */
export async function buildOffThread(
  graph: CodeGraph,
  root: string,
  key: string,
  averages: Readonly<Record<FieldName, number>>,
  sliceMs: number,
  wanted: () => boolean,
  signal?: AbortSignal,
): Promise<OffThreadBuild | null> {
  const version = graph.version;
  const capacity = graph.nodeCapacity;
  const worker = spawnEngineWorker(import.meta.url, './lexical-worker.ts');
  try {
    const answer = new Promise<BuildResponse | null>((resolve, reject) => {
      worker.once('message', resolve);
      // Aborted (the index was reset, the engine closes): the worker is stopped below.
      signal?.addEventListener('abort', () => resolve(null), { once: true });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the seek index worker exited (${code})`)));
    });
    answer.catch(() => undefined);
    const send = (req: BuildRequest): void => worker.postMessage(req);
    send({ type: 'start', root, key, version, capacity, averages: { ...averages } });
    let t0 = performance.now();
    for (let from = 0; from < capacity; from += CHUNK) {
      if (performance.now() - t0 >= sliceMs) {
        await turn();
        if (graph.version !== version || !wanted() || signal?.aborted) return null;
        t0 = performance.now();
      }
      const nodes: (GraphNode | null)[] = [];
      for (let i = from; i < Math.min(capacity, from + CHUNK); i++) {
        const n = graph.node(i);
        nodes.push(n ? slim(n) : null);
      }
      send({ type: 'nodes', from, nodes });
    }
    send({ type: 'end' });
    const res = await answer;
    if (res === null) return null;
    if (res.type === 'error') throw new Error(`the seek index worker failed: ${res.message}`);
    if (graph.version !== version || !wanted()) return null;
    const bytes = Buffer.from(res.bytes);
    const decoding = decodeIndexBytes(bytes, capacity);
    t0 = performance.now();
    let r = decoding.next();
    for (; !r.done; r = decoding.next()) {
      if (performance.now() - t0 >= sliceMs) {
        await turn();
        if (graph.version !== version || !wanted()) return null;
        t0 = performance.now();
      }
    }
    if (!r.value) throw new Error('the seek index worker returned a malformed index');
    return { base: { ...r.value, version }, bytes };
  } finally {
    void stop(worker);
  }
}

function stop(worker: Worker): Promise<number> {
  worker.removeAllListeners('exit');
  worker.on('error', () => undefined);
  return worker.terminate();
}
