/** Messages between the main thread and the seek index's build worker (lexical-worker.ts). */
import type { GraphNode } from './graph.ts';
import type { FieldName } from './lexical-text.ts';

/** Main thread → worker: a build's parameters, then its node slots in chunks, then `end`. */
export type BuildRequest =
  | {
      type: 'start';
      /** Workspace root: files are read from it. */
      root: string;
      /** The key the file is written under (the store generation). */
      key: string;
      version: number;
      capacity: number;
      /** Field length means used where a field is absent from every node. */
      averages: Record<FieldName, number>;
    }
  | { type: 'nodes'; from: number; nodes: (GraphNode | null)[] }
  | { type: 'end' };

/** Worker → main thread: the index file's bytes (transferred) and the slot-layout hash, or why it failed. */
export type BuildResponse = { type: 'done'; bytes: ArrayBuffer; hash: string } | { type: 'error'; message: string };
