/**
 * Builds the seek index in a child process (lexical-worker.ts): the main thread only copies its node
 * slots over in chunks and, at the end, reads back and decodes the index bytes the child wrote, both
 * in slices of about `sliceMs`. A build of 270K nodes (~16 s of CPU) then costs the main thread well
 * under a second, the event loop stays free, and neither the file texts the build reads nor its
 * working memory stay in this process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { CodeGraph, GraphNode } from './graph.ts';
import type { BaseIndex } from './lexical-build.ts';
import { decodeIndexBytes } from './lexical-persist.ts';
import type { BuildRequest, BuildResponse, NodeTuple } from './lexical-protocol.ts';
import type { FieldName } from './lexical-text.ts';

/** Node slots copied per message. */
const CHUNK = 512;

/** A build handed back by the child: the index and the index file's bytes (to write as they are). */
export interface OffThreadBuild {
  base: BaseIndex;
  bytes: Buffer;
}

/**
 * The fields a build reads of a node (lexical-text.ts, the slot hash) as a tuple; a chunk of them is
 * sent as one JSON string (serialising 270K node objects over the IPC channel one by one cost the main
 * thread seconds).
 */
function tuple(n: GraphNode): NodeTuple {
  return [n.id, n.kind, n.label, n.path, n.startLine, n.endLine, n.language, n.qualifiedName ?? null, n.doc ?? null, n.text ?? null, n.isTest ?? null];
}

const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** The build process, from source through the TypeScript loader the host runs under (tsx), or the built .js. */
function forkBuilder(): ChildProcess {
  const fromSource = new URL(import.meta.url).pathname.endsWith('.ts'); // a host may add a ?query for hot reload
  const entry = fileURLToPath(new URL(fromSource ? './lexical-worker.ts' : './lexical-worker.js', import.meta.url));
  return fork(entry, [], { execArgv: fromSource ? ['--import', import.meta.resolve('tsx/esm')] : [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
}

/**
 * A full build of `graph` made in a child process, keyed by `key`, its bytes passed through the scratch
 * file `scratch` (removed after); null when the graph changed meanwhile (the caller starts again),
 * `wanted()` turned false or `signal` aborted. Throws when the child fails.
 */
export async function buildOffThread(
  graph: CodeGraph,
  root: string,
  key: string,
  averages: Readonly<Record<FieldName, number>>,
  sliceMs: number,
  wanted: () => boolean,
  signal: AbortSignal | undefined,
  scratch: string,
): Promise<OffThreadBuild | null> {
  const version = graph.version;
  const capacity = graph.nodeCapacity;
  const child = forkBuilder();
  try {
    const answer = new Promise<BuildResponse | null>((resolve, reject) => {
      child.once('message', (m) => resolve(m as BuildResponse));
      child.once('error', reject);
      child.once('exit', (code, sig) => reject(new Error(`the seek index build process exited (${code ?? sig})`)));
      // Aborted (the index was reset, the engine closes): the child is stopped below.
      signal?.addEventListener('abort', () => resolve(null), { once: true });
    });
    answer.catch(() => undefined);
    const send = (req: BuildRequest): void => void child.send(req);
    send({ type: 'start', root, key, out: scratch, version, capacity, averages: { ...averages } });
    let t0 = performance.now();
    for (let from = 0; from < capacity; from += CHUNK) {
      if (performance.now() - t0 >= sliceMs) {
        await turn();
        if (graph.version !== version || !wanted() || signal?.aborted) return null;
        t0 = performance.now();
      }
      const nodes: (NodeTuple | null)[] = [];
      for (let i = from; i < Math.min(capacity, from + CHUNK); i++) {
        const n = graph.node(i);
        nodes.push(n ? tuple(n) : null);
      }
      send({ type: 'nodes', from, json: JSON.stringify(nodes) });
    }
    send({ type: 'end' });
    const res = await answer;
    if (res === null) return null;
    if (res.type === 'error') throw new Error(`the seek index build failed: ${res.message}`);
    if (graph.version !== version || !wanted()) return null;
    const bytes = await readFile(scratch);
    const decoding = decodeIndexBytes(bytes, capacity, true);
    t0 = performance.now();
    let r = decoding.next();
    for (; !r.done; r = decoding.next()) {
      if (performance.now() - t0 >= sliceMs) {
        await turn();
        if (graph.version !== version || !wanted()) return null;
        t0 = performance.now();
      }
    }
    if (!r.value) throw new Error('the seek index build process returned a malformed index');
    return { base: { ...r.value, version }, bytes };
  } finally {
    child.removeAllListeners('exit');
    child.on('error', () => undefined);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(scratch, { force: true });
  }
}
