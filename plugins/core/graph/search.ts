/** search: grep over file contents (literal / regex), or semantic: the best-matching lines of seek's candidates. */
import picomatch from 'picomatch';
import { AgentId, countTokens, defineVerb, packToTokenBudget, StringEnum, Type } from '../../../core/index.ts';
import { asHostError, pathScope, slicePace } from '../../graph/api.ts';
import { queryGraphOf, TokenBudget } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';

export const searchVerb = defineVerb({
  name: 'search',
  description: 'Search file contents like grep (literal or RE2 regex, context lines, filename glob), or semantic: the lines that best match a question, inside the symbols seek ranks.',
  input: Type.Object({
    agent_id: AgentId,
    query: Type.String({ minLength: 1 }),
    mode: StringEnum(['literal', 'regex', 'semantic'] as const, { default: 'literal' }),
    scope: Type.Optional(Type.String({ description: 'Only under this path' })),
    top_k: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    context_lines: Type.Integer({ minimum: 0, maximum: 20, default: 2 }),
    case_sensitive: Type.Boolean({ default: false }),
    invert: Type.Boolean({ default: false }),
    count_only: Type.Boolean({ default: false }),
    multiline: Type.Boolean({ default: false }),
    auto_ingest: Type.Boolean({ default: false, description: 'Refresh changed files first' }),
    filename_pattern: Type.Optional(Type.String({ description: 'Glob on paths (*.py)' })),
    max_output_chars: Type.Optional(Type.Integer({ minimum: 100 })),
    token_budget: Type.Optional(TokenBudget),
  }),
  output: Type.Object({
    generation: Type.Optional(Type.Number()),
    stale: Type.Optional(Type.Boolean()),
    budget: Type.Optional(Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() })),
    query: Type.String(),
    mode: Type.String(),
    results: Type.Optional(Type.Array(Type.Object({}))),
    timed_out: Type.Optional(Type.Boolean()),
    total_matches: Type.Optional(Type.Number()),
    files_scanned: Type.Optional(Type.Number()),
    files_matched: Type.Optional(Type.Number()),
    counts: Type.Optional(Type.Array(Type.Object({}))),
    elapsed_ms: Type.Optional(Type.Number()),
    hint: Type.Optional(Type.String()),
    matches: Type.Optional(Type.Array(Type.Object({}))),
    truncated: Type.Optional(Type.Boolean()),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['find', 'ground'],
  next: 'view',
  handler: async (args, call) => {
    // The federated view after `federate` (paths `<repo>::path`, each repository read by its own engine), else the workspace.
    const graph = queryGraphOf(call);
    if (args.auto_ingest && graph.writable) {
      try {
        await graph.engine.ingest({ incremental: true });
      } catch (error) {
        throw asHostError(error);
      }
    }
    const engine = await graph.requireGraph();
    const scope = pathScope(engine, args.scope).prefix;
    if (args.mode === 'semantic') {
      // Passages, not seek's list: the line of each candidate that holds most of the query, with context.
      await engine.prepareSeek();
      const found = engine.searchPassages(args.query, { topK: args.filename_pattern ? args.top_k * 3 : args.top_k, scope, minScore: 0.05, contextLines: args.context_lines });
      const results = found.results
        .filter((p) => !args.filename_pattern || matchesGlob(p.path, args.filename_pattern))
        .slice(0, args.top_k)
        .map((p) => ({ id: p.id, kind: p.kind, label: p.label, path: p.path, line: p.line, text: p.text, before: p.before, after: p.after, score: p.score, matched: p.matched }));
      const packed = args.token_budget ? packToTokenBudget(results, args.token_budget, (r) => countTokens(JSON.stringify(r))) : undefined;
      const kept = packed?.kept ?? results;
      recordVisit(call, engine.root, { files: [...new Set(kept.map((r) => r.path))] });
      return { query: args.query, mode: 'semantic', results: kept, ...(packed ? { budget: packed.report } : {}), generation: found.generation, stale: found.stale };
    }
    const options = {
      mode: args.mode === 'regex' ? ('regex' as const) : ('literal' as const),
      caseSensitive: args.case_sensitive,
      contextLines: args.context_lines,
      filenamePattern: args.filename_pattern,
      scope,
      invert: args.invert,
      countOnly: args.count_only,
      multiline: args.multiline,
      maxResults: args.top_k,
    };
    let found;
    try {
      found = await engine.searchPaced(args.query, options, slicePace(8)); // a file per step, 8 ms slices
    } catch (error) {
      throw asHostError(error);
    }
    // No match says nothing about files the graph does not hold (pyproject.toml, CI config): say so.
    const unscanned = found.totalMatches === 0 && !found.timedOut ? { hint: `no match in the ${found.filesScanned} file(s) of the graph; files the ingest does not parse (config, scripts, data) were not searched: glob names them (pattern *.toml, *.yml…), view reads them` } : {};
    if (args.count_only) {
      return { query: args.query, mode: args.mode, total_matches: found.totalMatches, files_scanned: found.filesScanned, files_matched: found.filesMatched, counts: found.counts ?? [], ...(found.timedOut ? { timed_out: true } : {}), ...unscanned };
    }
    let matches = found.matches.map((m) => ({ path: m.path, line: m.line, column: m.column, ...(m.endLine !== m.line ? { end_line: m.endLine } : {}), text: m.text, before: m.before, after: m.after }));
    let budget;
    if (args.token_budget) {
      const packed = packToTokenBudget(matches, args.token_budget, (m) => countTokens(JSON.stringify(m)));
      matches = packed.kept;
      budget = packed.report;
    }
    let charsCut = false;
    if (args.max_output_chars !== undefined) {
      let used = 0;
      const kept = [];
      for (const m of matches) {
        used += JSON.stringify(m).length;
        if (kept.length > 0 && used > args.max_output_chars) {
          charsCut = true;
          break;
        }
        kept.push(m);
      }
      matches = kept;
    }
    // Only the files of the matches sent: one cut by max_output_chars was not shown.
    recordVisit(call, engine.root, { files: [...new Set(matches.map((m) => m.path))] });
    return {
      query: args.query,
      mode: args.mode,
      matches,
      total_matches: found.totalMatches,
      files_scanned: found.filesScanned,
      files_matched: found.filesMatched,
      truncated: found.truncated || charsCut || (budget !== undefined && budget.dropped > 0),
      ...(found.timedOut ? { timed_out: true, hint: 'the scan hit its time budget: narrow it with scope or filename_pattern' } : unscanned),
      ...(budget ? { budget } : {}),
      elapsed_ms: Math.round(found.elapsedMs * 100) / 100,
      generation: found.generation,
      stale: found.stale,
    };
  },
});

function matchesGlob(path: string, pattern: string): boolean {
  return picomatch(pattern, { basename: !pattern.includes('/') })(path);
}
