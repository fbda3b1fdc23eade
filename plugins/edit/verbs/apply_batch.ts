/** apply_batch: several files written together — atomic (journaled) by default — then one re-ingest and an optional compile check. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type, writeFileAtomic, type CallContext } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import type { LockService } from '../../lock/api.ts';
import { writeBatchAtomic } from '../journal.ts';
import { proofTargets } from '../proofs.ts';
import { verifyWorkspace, type VerifyCommand } from '../verify.ts';
import { afterWrite, assertStillAsPlanned, currentHash, planWritesPaced, snapshotBeforePaced, type PlannedWrite } from '../writes.ts';
import { MAX_CONTENT_CHARS } from '../previews.ts';

/** Files one batch may write. */
export const MAX_BATCH_FILES = 200;

/** How verify runs (from the edit plugin's options, never from arguments). */
export interface VerifySettings {
  overrides: Record<string, VerifyCommand>;
  timeoutMs: number;
}

const Input = Type.Object({
  agent_id: AgentId,
  edits: Type.Array(
    Type.Object({ file_path: Type.String(), new_content: Type.String({ maxLength: MAX_CONTENT_CHARS }), expected_hash: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }),
    { minItems: 1, maxItems: MAX_BATCH_FILES },
  ),
  atomic: Type.Boolean({ default: true, description: 'All files or none (journaled)' }),
  reingest: Type.Boolean({ default: true }),
  verify: Type.Boolean({ default: false, description: 'Compile check, then the affected tests (commands from a fixed table or config)' }),
});

/**
 * Writes each file on its own (atomic: false): a failure is reported and the rest still written. A
 * file that changed since it was planned (other calls ran while the batch was planned, a slice at a
 * time) is not written and reported as failed.
 */
function writeEach(planned: PlannedWrite[]): { written: PlannedWrite[]; failed: { file_path: string; error: string }[] } {
  const written: PlannedWrite[] = [];
  const failed: { file_path: string; error: string }[] = [];
  for (const p of planned) {
    try {
      const now = currentHash(p);
      if (now !== p.oldHash) {
        failed.push({ file_path: p.path, error: `changed while the batch was planned (content hash now ${now ?? 'absent (no file)'}, planned on ${p.oldHash ?? 'no file'}): not written; re-read it and send its edit again` });
        continue;
      }
      writeFileAtomic(p.absolute, p.content);
      written.push(p);
    } catch (error) {
      failed.push({ file_path: p.path, error: (error as Error).message });
    }
  }
  return { written, failed };
}

/** The apply_batch verb, with verify settings from the plugin's options. */
export function applyBatchVerb(settings: VerifySettings) {
  return defineVerb({
    name: 'apply_batch',
    description: 'Write several files, all or none by default (journaled), re-ingest once; optional compile check (verify).',
    input: Input,
    output: Type.Object({
      verify: Type.Optional(Type.Object({ ok: Type.Boolean(), runs: Type.Array(Type.Unknown()), note: Type.Optional(Type.String()) })),
      failed: Type.Optional(Type.Array(Type.Object({}))),
      written: Type.Array(Type.Object({})),
      lock_overlaps: Type.Array(Type.Object({})),
      atomic: Type.Boolean(),
    }),
    effect: 'destructive', // overwrites files' content
    stages: ['edit'],
    timeoutMs: Math.max(settings.timeoutMs + 30_000, 60_000),
    proof: (args, ctx) => proofTargets(ctx.service<GraphService>('graph'), ctx, (args.edits ?? []).map((e) => e.file_path)),
    guide:
      'Every path and expected_hash is checked before anything is written. Atomic batches write and fsync every temp file (off the main thread), check that no target changed meanwhile (else nothing is written: EDIT_STALE_BASE names the file), keep the originals, journal the batch in the store, then rename; a failure restores the originals, and a crash mid-batch is rolled back at the next start (health reports it). `verify` runs the compile check of the project type (tsc --noEmit with a tsconfig.json, python -m py_compile on written .py files, go build ./..., cargo check), then, if it passes, the affected tests (the test files the graph ties to the written code through `tests` edges: pytest when configured, else unittest; go test on their packages; cargo test; vitest, jest or mocha from package.json); commands are set in m1nd.config.ts (options.edit.verify, `<project>` or `<project>-tests`), never by arguments.',
    handler: async (args, call: CallContext) => {
      const graph = call.service<GraphService>('graph');
      await graph.fresh();
      const planned = await planWritesPaced(graph, call.agentId, args.edits);
      let before = await snapshotBeforePaced(graph, planned);
      let written = planned;
      let failed: { file_path: string; error: string }[] = [];
      if (args.atomic) {
        try {
          await writeBatchAtomic(graph.engine.storeDir, call.agentId, planned, () => assertStillAsPlanned(planned, call.agentId));
        } catch (error) {
          if (error instanceof M1ndError) throw error;
          throw new M1ndError(ErrorCodes.EDIT_WRITE_FAILED, `apply_batch wrote nothing: ${(error as Error).message}; every original is restored`, {
            hint: 'fix the failing path (permissions, disk space) and retry the whole batch',
            cause: error,
          });
        }
      } else {
        ({ written, failed } = writeEach(planned));
        // The graph has not re-ingested yet, so this is still the pre-write view, of the written files only.
        if (failed.length) before = await snapshotBeforePaced(graph, written);
      }
      const report = await afterWrite(graph, call.service<LockService>('locks'), call, written, before, args.reingest);
      const verify = args.verify
        ? await verifyWorkspace(graph.engine.root, written.map((p) => p.path), {
            ...settings,
            tests: 'tests_to_run' in report.graph ? report.graph.tests_to_run : [],
            signal: call.signal,
            progress: (done, total, message) => void call.progress(done, total, message),
          })
        : undefined;
      return { atomic: args.atomic, ...report, ...(failed.length ? { failed } : {}), ...(verify ? { verify } : {}) };
    },
  });
}
