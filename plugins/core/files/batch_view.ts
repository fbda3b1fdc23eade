/** batch_view: several files (paths or globs) at once, within a total token budget. */
import { AgentId, countTokens, defineVerb, ErrorCodes, M1ndError, packToTokenBudget, Type } from '../../../core/index.ts';
import picomatch from 'picomatch';
import { engineCall } from '../../graph/api.ts';
import { capChars, graphOf, longLines, looksBinary, nodeRef, numberLines } from '../shared.ts';
import { refreshIfNeeded } from './refresh.ts';
import { recordVisit } from '../session/visits.ts';

export const batchViewVerb = defineVerb({
  name: 'batch_view',
  description: 'Read several files or globs at once: an outline plus the first lines of each, within a total token budget.',
  input: Type.Object({
    agent_id: AgentId,
    files: Type.Array(Type.String(), { minItems: 1, description: 'Paths or globs (src/**/*.ts)' }),
    max_lines_per_file: Type.Integer({ minimum: 1, default: 100 }),
    summary_mode: Type.Boolean({ default: true, description: 'Add each file’s symbol outline' }),
    auto_ingest: Type.Boolean({ default: true }),
    max_output_chars: Type.Optional(Type.Integer({ minimum: 100 })),
    token_budget: Type.Integer({ minimum: 100, default: 8000, description: 'Total BPE tokens for all files' }),
  }),
  output: Type.Object({
    graph: Type.Object({ in_graph: Type.Boolean(), reingested: Type.Boolean(), note: Type.Optional(Type.String()) }),
    chars_cut: Type.Optional(Type.Number()),
    unmatched_patterns: Type.Optional(Type.Array(Type.String())),
    files: Type.Array(Type.Object({})),
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    omitted_files: Type.Array(Type.String()),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['ground', 'review'],
  handler: async (args, call) => {
    const graph = graphOf(call);
    await graph.fresh();
    const known = graph.engine.filePaths();
    const wanted: string[] = [];
    const unmatched: string[] = [];
    for (const f of args.files) {
      if (/[*?[\]{}]/.test(f)) {
        // As glob reads a pattern: relative to the root (`./`, `/` dropped); without `/`, base names anywhere.
        const pattern = f.replace(/^(\.\/|\/)+/, '');
        const isMatch = picomatch(pattern, { dot: false, basename: !pattern.includes('/') });
        const hits = known.filter((p) => isMatch(p));
        if (hits.length === 0) unmatched.push(f);
        wanted.push(...hits);
      } else {
        wanted.push(engineCall(() => graph.engine.resolvePath(f)).relative);
      }
    }
    const paths = [...new Set(wanted)];
    if (paths.length === 0) {
      throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `no file matches ${args.files.join(', ')}`, { hint: 'list paths with glob({"pattern":"**/*.ts"})' });
    }
    const sync = await refreshIfNeeded(graph, paths.filter((p) => !/[*?]/.test(p)), args.auto_ingest);
    const g = graph.engine.graph;
    const items = paths.map((p) => {
      try {
        const file = graph.engine.readFile(p);
        if (looksBinary(file.content)) return { file_path: p, error: `binary file (${file.size} bytes): its bytes are not shown` };
        // A final newline ends the last line; it does not start another.
        const lines = file.content.split('\n');
        if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
        const shown = lines.slice(0, args.max_lines_per_file);
        const outline = args.summary_mode
          ? g.outgoing(`file:${p}`).map((e) => g.get(e.target)).filter((n) => n && n.kind !== 'file' && n.path === p).map((n) => nodeRef(n!))
          : undefined;
        return { file_path: p, total_lines: lines.length, ...(outline ? { outline } : {}), content: numberLines(shown, 1), truncated: shown.length < lines.length || longLines(shown) > 0 };
      } catch (error) {
        const hint = (error as { hint?: string }).hint;
        return { file_path: p, error: (error as Error).message, ...(hint ? { hint } : {}) };
      }
    });
    const { kept, report } = packToTokenBudget(items, args.token_budget, (i) => countTokens(JSON.stringify(i)));
    recordVisit(call, graph.engine.root, { files: kept.filter((f) => 'content' in f).map((f) => f.file_path) });
    let files = kept;
    let charsCut = 0;
    if (args.max_output_chars !== undefined) {
      let room = args.max_output_chars;
      files = kept.map((f) => {
        if (!('content' in f)) return f;
        const c = capChars(f.content, Math.max(0, room));
        room -= c.text.length;
        charsCut += c.chars_cut;
        return { ...f, content: c.text, truncated: f.truncated || c.truncated };
      });
    }
    return {
      files,
      budget: report,
      omitted_files: paths.slice(kept.length),
      ...(unmatched.length ? { unmatched_patterns: unmatched } : {}),
      ...(charsCut ? { chars_cut: charsCut } : {}),
      graph: sync,
    };
  },
});
