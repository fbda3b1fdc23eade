/** edit_preview: stages a full replacement or exact-match hunks in memory and shows the diff and graph effect, writing nothing. */
import { createTwoFilesPatch } from 'diff';
import { existsSync } from 'node:fs';
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { engineCall } from '../../graph/api.ts';
import { readFileBytes } from '../file-bytes.ts';
import { graphDelta, previewSnapshot, snapshotFiles } from '../graph-delta.ts';
import { applyHunks } from '../hunks.ts';
import { MAX_CONTENT_CHARS, PREVIEW_TTL_MS, stagePreview } from '../previews.ts';
import { textWarnings } from '../text-warnings.ts';

/** Diff lines shown at most (the preview keeps the whole content either way). */
const MAX_DIFF_LINES = 400;

export const editPreviewVerb = defineVerb({
  name: 'edit_preview',
  description: 'Stage a file replacement or exact-match hunks without writing: unified diff, base hash, graph effect. Commit with edit_commit.',
  input: Type.Object({
    agent_id: AgentId,
    file_path: Type.String(),
    new_content: Type.Optional(Type.String({ maxLength: MAX_CONTENT_CHARS, description: 'Full new content (or give hunks)' })),
    hunks: Type.Optional(Type.Array(Type.Object({ old_text: Type.String({ maxLength: MAX_CONTENT_CHARS }), new_text: Type.String({ maxLength: MAX_CONTENT_CHARS }) }), { minItems: 1, maxItems: 100, description: 'Each old_text must match exactly once' })),
    description: Type.Optional(Type.String()),
  }),
  output: Type.Object({
    preview_id: Type.String(),
    file_path: Type.String(),
    base_hash: Type.String(),
    expires_in_s: Type.Number(),
    diff: Type.String(),
    diff_truncated: Type.Boolean(),
    lines: Type.Object({ added: Type.Number(), removed: Type.Number() }),
    warnings: Type.Array(Type.String()),
    graph_effect: Type.Union([Type.Object({ symbols: Type.Object({}), dependents: Type.Array(Type.Unknown()), tests_to_run: Type.Array(Type.Unknown()), note: Type.Optional(Type.Unknown()) }), Type.Object({ note: Type.String(), symbols: Type.Optional(Type.Unknown()), dependents: Type.Optional(Type.Unknown()), tests_to_run: Type.Optional(Type.Unknown()) })]),
    commit: Type.Object({ verb: Type.String(), arguments: Type.Object({}) }),
  }),
  effect: 'session',
  stages: ['edit'],
  next: 'edit_commit',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    if ((args.new_content === undefined) === (args.hunks === undefined)) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'edit_preview takes new_content or hunks, exactly one of them', {
        hint: `edit_preview({"agent_id":"${call.agentId}","file_path":"${args.file_path}","hunks":[{"old_text":"…","new_text":"…"}]})`,
      });
    }
    await graph.fresh();
    const p = engineCall(() => graph.engine.resolvePath(args.file_path));
    const current = existsSync(p.absolute) ? readFileBytes(graph, p.relative) : null;
    if (!current && args.hunks) {
      throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `hunks edit an existing file; "${p.relative}" does not exist`, { hint: 'pass new_content to stage a new file' });
    }
    const oldText = current?.text ?? null;
    const next = args.hunks ? applyHunks(oldText!, args.hunks, p.relative) : args.new_content!;
    const preview = stagePreview(call.session, call.agentId, { file_path: p.relative, base_hash: current?.hash ?? 'absent', new_content: next, description: args.description });
    const diff = createTwoFilesPatch(`a/${p.relative}`, `b/${p.relative}`, oldText ?? '', next, '', '', { context: 3 });
    const diffLines = diff.split('\n');
    const added = diffLines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
    const removed = diffLines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
    const symbols = await graph.previewSymbols(p.relative, next);
    const before = snapshotFiles(graph, [p.relative], new Map([[p.relative, oldText]]));
    const effect = symbols ? graphDelta(before, previewSnapshot(before, symbols, next)) : null;
    return {
      preview_id: preview.preview_id,
      file_path: p.relative,
      base_hash: preview.base_hash,
      expires_in_s: PREVIEW_TTL_MS / 1000,
      diff: diffLines.slice(0, MAX_DIFF_LINES).join('\n'),
      diff_truncated: diffLines.length > MAX_DIFF_LINES,
      lines: { added, removed },
      warnings: textWarnings(oldText, next),
      graph_effect: effect ? { symbols: effect.symbols, dependents: effect.dependents, tests_to_run: effect.tests_to_run } : { note: 'not a language the graph parses' },
      commit: { verb: 'edit_commit', arguments: { agent_id: call.agentId, preview_id: preview.preview_id, confirm: true } },
    };
  },
});
