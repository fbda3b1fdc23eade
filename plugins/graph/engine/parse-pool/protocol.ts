/** Messages between the ingest and its parse workers. */
import type { ParseExtensionSpec } from '../parse-extensions.ts';
import type { ParseTask, WireOutcome } from './parse-file.ts';

/** Parse a batch of files of one workspace. */
export interface ParseRequest {
  type: 'parse';
  id: number;
  root: string;
  parserVersion: string;
  tasks: ParseTask[];
  /** Send each extraction's light copy too (a streamed ingest's build reads only that before linking). */
  light?: boolean;
  /** Send '' for each file's text (the ingest keeps none). */
  noText?: boolean;
  /** Parse extensions to run on each tree (parse-extensions.ts). */
  extensions?: ParseExtensionSpec[];
}

/**
 * A batch's outcomes, in the order of its tasks, with the worker's read and parse milliseconds and
 * its memory after the batch (bytes: V8 heap committed, tree-sitter's linear memory) and its thread
 * id (Linux: /proc/thread-self), which the pool keeps to check the thread's priority.
 */
export type ParseResponse =
  | { type: 'result'; id: number; outcomes: WireOutcome[]; read: number; parse: number; heap: number; wasm: number; tid?: number }
  | { type: 'error'; id: number; message: string };
