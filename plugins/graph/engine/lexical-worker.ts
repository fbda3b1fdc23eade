/**
 * The seek index's full build in a worker thread (lexical-offthread.ts starts it): the main thread
 * sends its node slots in chunks, the worker tokenises every node, reading each file's text from disk
 * itself (one file at a time: no text is kept, and the main thread's search cache is not filled),
 * packs the postings and hands back the bytes of the index file (lexical-persist.ts), transferred,
 * not copied. The main thread decodes them in slices, installs them and writes the file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { GraphNode } from './graph.ts';
import { buildBaseIndex, type NodeSlots } from './lexical-build.ts';
import { encodeIndexFile, slotLayoutHash } from './lexical-persist.ts';
import type { BuildRequest, BuildResponse } from './lexical-protocol.ts';

type Start = Extract<BuildRequest, { type: 'start' }>;

let slots: (GraphNode | null)[] = [];
let request: Start | null = null;

function runToEnd<T>(steps: Generator<void, T, void>): T {
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

function build(start: Start): BuildResponse {
  const graph: NodeSlots = { version: start.version, nodeCapacity: start.capacity, node: (i) => slots[i] ?? null };
  const textOf = (path: string): string | null => {
    try {
      return readFileSync(join(start.root, path), 'utf8');
    } catch {
      return null;
    }
  };
  const base = runToEnd(buildBaseIndex(graph, textOf, start.averages));
  const hash = runToEnd(slotLayoutHash(graph));
  slots = [];
  base.indexed = null;
  const parts = runToEnd(encodeIndexFile(start.key, hash, base, start.capacity));
  let length = 0;
  for (const p of parts) length += p.length;
  // One transferable buffer holding exactly the file's bytes.
  const bytes = new Uint8Array(new ArrayBuffer(length));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { type: 'done', bytes: bytes.buffer, hash };
}

parentPort!.on('message', (req: BuildRequest) => {
  if (req.type === 'start') {
    request = req;
    slots = new Array<GraphNode | null>(req.capacity).fill(null);
  } else if (req.type === 'nodes') {
    for (let k = 0; k < req.nodes.length; k++) slots[req.from + k] = req.nodes[k];
  } else if (request) {
    let res: BuildResponse;
    try {
      res = build(request);
    } catch (err) {
      res = { type: 'error', message: (err as Error).message ?? String(err) };
    }
    request = null;
    if (res.type === 'done') parentPort!.postMessage(res, [res.bytes]);
    else parentPort!.postMessage(res);
  }
});
