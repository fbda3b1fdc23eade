/** scan_all: every preset (and configured pattern), or a subset, in one pass over the code; findings grouped by pattern. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { PRESETS, type PresetName } from '../code-rules.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { FilesCapped, packFindings, rulesOf, type PatternSpec } from '../scan-params.ts';
import { runScan, type Finding } from '../scanner.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';

/** `scan_all`, knowing the custom patterns of the config. */
export function scanAllVerb(configured: readonly PatternSpec[]) {
  return defineVerb({
    name: 'scan_all',
    description: 'Runs every scan preset and configured pattern (or the ones named) in one pass over the code; findings grouped by pattern, worst first.',
    input: Type.Object({
      agent_id: AgentId,
      patterns: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32, description: 'Only these presets/configured patterns (default all)' })),
      scope: ScopeParam,
      severity_min: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.3, description: 'Drop findings below this severity' })),
      graph_validate: Type.Optional(Type.Boolean({ default: true, description: 'Place findings in their symbol, weigh by dependents' })),
      limit_per_pattern: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Most findings per pattern' })),
      token_budget: Type.Optional(Type.Integer({ minimum: 300, maximum: 20_000, default: 5000, description: 'Result size bound' })),
      time_budget_ms: timeBudgetParam(15_000),
    }),
    output: Type.Object({
      files_scanned: Type.Number(),
      files_total: Type.Number(),
      files_from_cache: Type.Number(),
      files_capped: Type.Optional(FilesCapped),
      budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
      time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
      unknown_patterns: Type.Optional(Type.Array(Type.String())),
      counts: Type.Object({}),
      findings: Type.Object({}),
    }),
    tiers: ['full'],
    effect: 'read',
    stages: ['review'],
    next: 'scan',
    guide: 'Each file is parsed once for all patterns; results are cached per file content hash, so a second run re-parses only changed files. `counts` has every pattern\'s total; the listing keeps the worst findings of each pattern within token_budget. A rule keeps 200 matches per file: `files_capped` names the files where it stopped.',
    handler: async (args, call) => {
      const { graph, engine } = await structureCall(call);
      const chosen = args.patterns && args.patterns.length > 0 ? new Set(args.patterns) : null;
      const presets = PRESETS.filter((p) => !chosen || chosen.has(p)) as PresetName[];
      const custom = configured.filter((p) => !chosen || chosen.has(p.name)).flatMap(rulesOf);
      const unknown = chosen ? [...chosen].filter((p) => !(PRESETS as readonly string[]).includes(p) && !configured.some((c) => c.name === p)) : [];
      const deadline = new Deadline(args.time_budget_ms ?? 15_000, call.signal);
      deadline.progress = (done, total, message) => call.progress(done, total, message);
      const scope = scopeFilter(engine, args.scope);
      const outcome = await runScan(graph, { presets, custom, inScope: scope.has, severityMin: args.severity_min ?? 0.3, graphValidate: args.graph_validate ?? true, deadline });
      const groups = new Map<string, Finding[]>();
      for (const name of [...presets, ...configured.filter((p) => !chosen || chosen.has(p.name)).map((p) => p.name)]) groups.set(name, []);
      for (const f of outcome.findings) groups.get(f.pattern)?.push(f);
      const counts = Object.fromEntries([...groups].map(([k, v]) => [k, v.length]));
      // Round-robin by rank, so every pattern keeps its worst findings before any gets its tenth.
      const limit = args.limit_per_pattern ?? 50;
      const interleaved: Finding[] = [];
      for (let rank = 0; rank < limit; rank++) {
        let any = false;
        for (const list of groups.values()) if (rank < list.length) {
          interleaved.push(list[rank]);
          any = true;
        }
        if (!any) break;
      }
      const packed = await packFindings(interleaved, (args.token_budget ?? 5000) - 300, () => deadline.pace());
      const byPattern: Record<string, Finding[]> = {};
      for (const f of packed.findings) (byPattern[f.pattern] ??= []).push(f);
      return {
        counts,
        findings: byPattern,
        ...(unknown.length ? { unknown_patterns: unknown } : {}),
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
