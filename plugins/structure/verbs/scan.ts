/** scan: one pattern over the code — a built-in preset (tree-sitter queries plus graph conditions) or a custom query/keywords. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { CODE_LANGUAGES } from '../code-trees.ts';
import { PRESETS, type PresetName } from '../code-rules.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { FilesCapped, packFindings, rulesOf, type PatternSpec } from '../scan-params.ts';
import { runScan } from '../scanner.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';

/** `scan`, knowing the custom patterns of the config. */
export function scanVerb(configured: readonly PatternSpec[]) {
  return defineVerb({
    name: 'scan',
    description: 'Scans the code (not names) for one pattern: a preset, a configured pattern, or a tree-sitter query / keywords given here; findings with file, lines, severity and code.',
    input: Type.Object({
      agent_id: AgentId,
      pattern: Type.String({ maxLength: 64, description: `Preset (${PRESETS.join(', ')}), a configured pattern name, or "custom" with query/keywords` }),
      query: Type.Optional(Type.String({ maxLength: 4000, description: 'Custom tree-sitter query; @hit marks the reported node' })),
      language: Type.Optional(StringEnum([...CODE_LANGUAGES], { description: 'Language of `query` (default typescript/javascript)' })),
      keywords: Type.Optional(Type.Array(Type.String({ maxLength: 80 }), { maxItems: 50, description: 'Custom: identifiers to find in code' })),
      scope: ScopeParam,
      severity_min: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.3, description: 'Drop findings below this severity' })),
      graph_validate: Type.Optional(Type.Boolean({ default: true, description: 'Place findings in their symbol, weigh by dependents' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Most findings returned' })),
      token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 4000, description: 'Result size bound' })),
      time_budget_ms: timeBudgetParam(10_000),
    }),
    output: Type.Object({
      pattern: Type.String(),
      total: Type.Number(),
      findings: Type.Array(Type.Object({})),
      files_scanned: Type.Number(),
      files_total: Type.Number(),
      files_from_cache: Type.Number(),
      files_capped: Type.Optional(FilesCapped),
      budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
      time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['review'],
    next: 'view',
    guide:
      'Presets: error_handling (swallowed catch/except), resource_cleanup (open outside with, handles never closed, discarded timers), api_surface (exported symbols used elsewhere, undocumented), state_mutation (global / module-level writes from functions), concurrency (async forEach, floating promises, un-awaited coroutines, discarded tasks, unjoined threads), auth_boundary (routes with no auth middleware/decorator), test_coverage (depended-on symbols no test reaches), dependency_injection (a class constructing a workspace class). ' +
      'Custom: pattern "custom" with `query` (tree-sitter S-expression in `language`) or `keywords`. Results per file are cached by content hash. A rule keeps 200 matches per file: `files_capped` names the files where it stopped (there `total` is a floor). `time.stopped_early` says the scan ran out of time (narrow `scope`).',
    handler: async (args, call) => {
      const { graph, engine } = await structureCall(call);
      const preset = (PRESETS as readonly string[]).includes(args.pattern) ? (args.pattern as PresetName) : null;
      const named = configured.find((p) => p.name === args.pattern);
      const custom = args.query || args.keywords?.length ? rulesOf({ name: 'custom', query: args.query, language: args.language, keywords: args.keywords }) : named ? rulesOf(named) : [];
      if (!preset && custom.length === 0) {
        throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `unknown pattern "${args.pattern}"${args.pattern === 'custom' ? ' (custom needs `query` or `keywords`)' : ''}`, {
          hint: `pass a preset (${PRESETS.join(', ')})${configured.length ? `, a configured pattern (${configured.map((p) => p.name).join(', ')})` : ''}, or pattern "custom" with query or keywords`,
        });
      }
      const deadline = new Deadline(args.time_budget_ms ?? 10_000, call.signal);
      deadline.progress = (done, total, message) => call.progress(done, total, message);
      const scope = scopeFilter(engine, args.scope);
      const outcome = await runScan(graph, { presets: preset ? [preset] : [], custom, inScope: scope.has, severityMin: args.severity_min ?? 0.3, graphValidate: args.graph_validate ?? true, deadline });
      const limited = outcome.findings.slice(0, args.limit ?? 50);
      const packed = await packFindings(limited, args.token_budget ?? 4000, () => deadline.pace());
      return {
        pattern: args.pattern,
        total: outcome.findings.length,
        findings: packed.findings,
        files_scanned: outcome.files_scanned,
        files_total: outcome.files_total,
        files_from_cache: outcome.files_from_cache,
        files_from_store: outcome.files_from_store,
        files_from_ingest: outcome.files_from_ingest,
        files_parsed: outcome.files_parsed,
        parse_workers: outcome.parse_workers,
        ...(outcome.files_capped ? { files_capped: outcome.files_capped } : {}),
        budget: packed.budget,
        time: deadline.report(`${outcome.files_total - outcome.files_scanned} file(s) not scanned`),
      };
    },
  });
}
