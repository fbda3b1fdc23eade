/** Messages between the main thread and the seek index's build process (lexical-worker.ts). */
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
      /** Scratch file the index file's bytes are written to. */
      out: string;
      version: number;
      capacity: number;
      /** Field length means used where a field is absent from every node. */
      averages: Record<FieldName, number>;
    }
  | { type: 'nodes'; from: number; nodes: (GraphNode | null)[] }
  | { type: 'end' };

/** Build process → main thread: the scratch file is written (and the slot-layout hash), or why it failed. */
export type BuildResponse = { type: 'done'; hash: string } | { type: 'error'; message: string };
