/**
 * The edit plugin's public entry: the write path other plugins' file writers reuse — plan (path
 * guard, compare-and-swap on each file's expected hash), journaled all-or-nothing write, then
 * re-ingest, graph delta, lock overlaps and proof advance — and the proof resolver the host's
 * proof gate calls. A writer reusing it `requires: ['graph', 'locks']`.
 */
export { hashBytes } from './file-bytes.ts';
export { writeBatchAtomic } from './journal.ts';
export { proofTargets } from './proofs.ts';
export { afterWrite, assertStillAsPlanned, planWrites, planWritesPaced, snapshotBefore, snapshotBeforePaced } from './writes.ts';
export type { PlannedWrite, WriteReport, WriteRequest } from './writes.ts';
