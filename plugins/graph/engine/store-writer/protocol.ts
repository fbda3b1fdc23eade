/** Messages between the ingest and the store's commit worker. */
import type { SerializedFile, SerializedIngest } from '../store-commit.ts';

/**
 * To the worker: rows of commit `id` (several messages, possibly while the ingest still parses),
 * then the commit itself, or `drop` when the ingest gave up before committing.
 */
export type CommitRequest =
  | { type: 'files'; id: number; files: SerializedFile[] }
  | { type: 'drop'; id: number }
  | { type: 'commit'; id: number; dir: string; busyTimeoutMs: number; removes: SerializedIngest['removes']; gitCommits?: SerializedIngest['gitCommits']; meta: SerializedIngest['meta'] };

/** From the worker: the committed generation, or why nothing was written. */
export type CommitResponse =
  | { type: 'done'; id: number; generation: number; previous: number }
  | { type: 'error'; id: number; message: string; code?: string };
