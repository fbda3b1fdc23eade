/**
 * The seek index's full build in a child process (lexical-offthread.ts forks it): the main thread
 * sends its node slots in chunks, the child tokenises every node, reading each file's text from disk
 * itself (one file at a time: no text is kept, and the main thread's search cache is not filled),
 * packs the postings and writes the index file's bytes (lexical-persist.ts) to the scratch file it
 * was given. The main thread reads them back, decodes them in slices, installs them and writes the
 * index file. A process rather than a worker thread: the build's memory (hundreds of MB at 270K
 * nodes) goes back to the system when it exits, where a thread's malloc arena would keep it resident.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GraphNode } from './graph.ts';
import { buildBaseIndex, type NodeSlots } from './lexical-build.ts';
import { encodeIndexFile, slotLayoutHash } from './lexical-persist.ts';
import { nodeOfTuple, type BuildRequest, type BuildResponse, type NodeTuple } from './lexical-protocol.ts';

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
  writeFileSync(start.out, Buffer.concat(parts));
  return { type: 'done', hash };
}

// The parent is gone (it exited or was killed): nothing will read the build.
process.on('disconnect', () => process.exit(0));
process.on('message', (req: BuildRequest) => {
  if (req.type === 'start') {
    request = req;
    slots = new Array<GraphNode | null>(req.capacity).fill(null);
  } else if (req.type === 'nodes') {
    const nodes = JSON.parse(req.json) as (NodeTuple | null)[];
    for (let k = 0; k < nodes.length; k++) {
      const t = nodes[k];
      slots[req.from + k] = t ? nodeOfTuple(t) : null;
    }
  } else if (request) {
    let res: BuildResponse;
    try {
      res = build(request);
    } catch (err) {
      res = { type: 'error', message: (err as Error).message ?? String(err) };
    }
    request = null;
    process.send!(res, () => process.exit(0));
  }
});
