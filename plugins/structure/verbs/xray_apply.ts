/** xray_apply: a deterministic codemod (header tag or symbol annotation) over many files, dry run first, committed through the edit family's journaled, hash-checked write path. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { afterWrite, assertStillAsPlanned, planWritesPaced, proofTargets, snapshotBeforePaced, writeBatchAtomic } from '../../edit/api.ts';
import type { LockService } from '../../lock/api.ts';
import { structureCall } from '../call.ts';
import { planCodemod, selectFiles } from '../xray/codemod.ts';
import { appendLedger } from '../xray/ledger.ts';

const PREVIEW_FILES = 20;

export const xrayApplyVerb = defineVerb({
  name: 'xray_apply',
  description: 'Codemod over many files: ensure a header tag comment, or annotate every symbol of a kind. dry_run (default) shows the plan; commit writes all files atomically.',
  input: Type.Object({
    agent_id: AgentId,
    selector: Type.Object(
      {
        path_prefix: Type.Optional(Type.String({ maxLength: 1024, workspacePath: true, description: 'Files under this path' })),
        extensions: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: 16, description: 'File extensions, e.g. [".ts"]' })),
      },
      { description: 'Which code files (at most 200)' },
    ),
    transform: Type.Object(
      {
        kind: StringEnum(['ensure_header_tag', 'annotate_symbol'], { description: 'Header comment per file, or a comment above each symbol' }),
        tag: Type.Optional(Type.String({ maxLength: 200, description: 'Header text (ensure_header_tag)' })),
        annotation: Type.Optional(Type.String({ maxLength: 200, description: 'Comment text above each symbol (annotate_symbol)' })),
        node_type: Type.Optional(StringEnum(['function', 'method', 'class', 'interface', 'type'], { description: 'Symbol kind annotated (default function)' })),
        position: Type.Optional(StringEnum(['above'], { description: 'Where the annotation goes' })),
      },
      { description: 'The codemod' },
    ),
    mode: Type.Optional(StringEnum(['dry_run', 'commit'], { default: 'dry_run', description: 'Plan only, or write' })),
    expect_version: Type.Optional(Type.String({ maxLength: 64, description: 'plan_version of the dry run: commit refuses if the plan changed' })),
  }),
  // dry_run: files and next; commit: ledger_seq with the write report (written, graph, lock_overlaps), or written [] when nothing changes.
  output: Type.Object({
    mode: Type.String(),
    plan_version: Type.String(),
    selected: Type.Number(),
    files_changed: Type.Number(),
    files_unchanged: Type.Number(),
    insertions: Type.Number(),
    files: Type.Optional(Type.Array(Type.Object({ file_path: Type.String(), insertions: Type.Array(Type.Unknown()) }))),
    next: Type.Optional(Type.String()),
    ledger_seq: Type.Optional(Type.Number()),
    written: Type.Optional(Type.Array(Type.Object({ file_path: Type.String(), bytes: Type.Number(), created: Type.Boolean(), old_hash: Type.Union([Type.String(), Type.Null()]), new_hash: Type.String() }))),
    graph: Type.Optional(Type.Object({ reingested: Type.Optional(Type.Boolean()), generation: Type.Optional(Type.Number()), reingest_ms: Type.Optional(Type.Number()) })),
    lock_overlaps: Type.Optional(Type.Array(Type.Object({}))),
  }),
  tiers: ['full'],
  effect: (args) => (args.mode === 'commit' ? 'destructive' : 'read'), // a commit rewrites files
  maxEffect: 'destructive',
  stages: ['edit'],
  next: 'xray_ledger',
  timeoutMs: 120_000,
  proof: (args, ctx) => {
    if (args.mode !== 'commit') return { targets: [] };
    const graph = ctx.service<GraphService>('graph');
    return proofTargets(graph, ctx, selectFiles(graph, args.selector).map((f) => f.path));
  },
  guide:
    'Comments use the language\'s line comment (# in Python, // elsewhere); a header goes after a shebang or Python coding line. Idempotent: files that already carry the text are unchanged. A commit re-plans, refuses when expect_version differs from the new plan_version, checks every file\'s hash again, writes all files or none (journaled), re-ingests them and appends a ledger entry (xray_ledger).',
  handler: async (args, call) => {
    const { graph } = await structureCall(call);
    const files = selectFiles(graph, args.selector);
    const plan = await planCodemod(graph, files, args.transform);
    const summary = {
      mode: args.mode ?? 'dry_run',
      plan_version: plan.version,
      selected: plan.selected,
      files_changed: plan.changed.length,
      files_unchanged: plan.unchanged,
      insertions: plan.changed.reduce((s, f) => s + f.inserted.length, 0),
    };
    if (args.mode !== 'commit') {
      return {
        ...summary,
        files: plan.changed.slice(0, PREVIEW_FILES).map((f) => ({ file_path: f.path, insertions: f.inserted.slice(0, 5) })),
        next: plan.changed.length ? `xray_apply with mode "commit" and expect_version "${plan.version}"` : 'nothing to change',
      };
    }
    if (args.expect_version && args.expect_version !== plan.version) {
      throw new M1ndError(ErrorCodes.STATE_STALE, `the plan changed since the dry run (plan_version ${plan.version}, expected ${args.expect_version}): files or the selection differ`, {
        hint: 'run xray_apply in dry_run again, review, and commit with its plan_version',
      });
    }
    if (plan.changed.length === 0) return { ...summary, written: [], next: 'nothing to change' };
    const planned = await planWritesPaced(graph, call.agentId, plan.changed.map((f) => ({ file_path: f.path, new_content: f.content, expected_hash: f.oldHash })));
    const before = await snapshotBeforePaced(graph, planned);
    try {
      await writeBatchAtomic(graph.engine.storeDir, call.agentId, planned, () => assertStillAsPlanned(planned, call.agentId));
    } catch (error) {
      if (error instanceof M1ndError) throw error;
      throw new M1ndError(ErrorCodes.EDIT_WRITE_FAILED, `xray_apply wrote nothing: ${(error as Error).message}; every original is restored`, { hint: 'fix the failing path (permissions, disk space) and commit again', cause: error });
    }
    const report = await afterWrite(graph, call.service<LockService>('locks'), call, planned, before, true);
    const entry = appendLedger(graph, {
      verb: 'xray_apply',
      agent_id: call.agentId,
      summary: `${args.transform.kind} "${args.transform.tag ?? args.transform.annotation ?? ''}" on ${planned.length} file(s), ${summary.insertions} insertion(s)`,
      files: planned.map((p) => p.path),
      version_before: plan.version,
    });
    return { ...summary, ledger_seq: entry.seq, ...report };
  },
});
