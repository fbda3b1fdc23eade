/** Messages between the ingest and the store's commit worker. */
import type { SerializedFile, SerializedIngest } from '../store-commit.ts';

/**
 * To the worker: rows of commit `id` (several messages, possibly while the ingest still parses;
 * staged in the store under `run` from sequence number `seq`), then the commit itself, or `drop`
 * when the ingest gave up before committing.
 */
export type CommitRequest =
  | { type: 'files'; id: number; run: string; seq: number; dir: string; busyTimeoutMs: number; files: SerializedFile[] }
  | { type: 'drop'; id: number; run: string; dir: string; busyTimeoutMs: number }
  | { type: 'commit'; id: number; run: string; dir: string; busyTimeoutMs: number; removes: SerializedIngest['removes']; gitCommits?: SerializedIngest['gitCommits']; meta: SerializedIngest['meta']; extensions?: SerializedIngest['extensions'] }
  /** The store in `dir` was closed: the worker closes its connection to it (answered with `closed`). */
  | { type: 'close'; id: number; dir: string };

/**
 * From the worker: rows of commit `id` before sequence number `upTo` are staged in the store (the
 * ingest may drop their JSON), the committed generation, or why nothing was written.
 */
export type CommitResponse =
  | { type: 'staged'; id: number; upTo: number }
  | { type: 'done'; id: number; generation: number; previous: number }
  | { type: 'error'; id: number; message: string; code?: string }
  | { type: 'closed'; id: number };
