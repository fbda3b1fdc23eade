/** antibody_scan: where stored bug patterns recur — AST-shape matches and query matches, with specificity-based confidence. */
import { AgentId, defineVerb, packToTokenBudget, StringEnum, Type } from '../../../core/index.ts';
import type { GraphNode } from '../../graph/api.ts';
import { listAntibodies, SEVERITIES } from '../antibodies.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { runScan, type CappedFiles } from '../scanner.ts';
import { MAX_MATCHES_PER_RULE_FILE } from '../file-facts.ts';
import { FilesCapped, rulesOf } from '../scan-params.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';
import { collectShapes, jaccardAtLeast } from '../shapes.ts';

interface Match {
  antibody: string;
  name: string;
  severity: string;
  node?: string;
  file: string;
  lines: [number, number];
  similarity: number;
  confidence: number;
  code?: string;
}

export const antibodyScanVerb = defineVerb({
  name: 'antibody_scan',
  description: 'Finds where stored bug patterns (antibodies) may recur: functions shaped like a known bug, or code matching its query; confidence from similarity and specificity.',
  input: Type.Object({
    agent_id: AgentId,
    scope: ScopeParam,
    antibody_ids: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 100, description: 'Only these (default all enabled)' })),
    min_severity: Type.Optional(StringEnum([...SEVERITIES], { default: 'info', description: 'Skip antibodies below this severity' })),
    similarity_threshold: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1, description: "Least AST similarity for shape antibodies (default 0.7; an antibody's own min_similarity, when higher, wins)" })),
    max_matches: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Most matches returned' })),
    max_matches_per_antibody: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Most matches per antibody' })),
    per_antibody_ms: Type.Optional(Type.Integer({ minimum: 50, maximum: 60_000, default: 2000, description: 'Time budget of each query antibody' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 3000, description: 'Result size bound' })),
    time_budget_ms: timeBudgetParam(15_000),
  }),
  output: Type.Object({
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
    stopped: Type.Optional(Type.Array(Type.String())),
    antibodies_scanned: Type.Number(),
    matches: Type.Array(Type.Object({})),
    total: Type.Number(),
    capped: Type.Optional(Type.Array(Type.Object({ antibody: Type.String(), found: Type.Number(), kept: Type.Number() }))),
    files_capped: Type.Optional(FilesCapped),
    thresholds_raised: Type.Optional(Type.Array(Type.Object({ antibody: Type.String(), threshold: Type.Number() }))),
    note: Type.Optional(Type.String()),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  next: 'view',
  guide: 'confidence = similarity × (0.5 + 0.5 × specificity); a query match has similarity 1. The function an antibody was taken from is not reported. total counts every match found; max_matches_per_antibody keeps each antibody\'s best (`capped` lists the antibodies cut, with how many they found), then max_matches and token_budget bound the list. Each query antibody runs under its own time budget (per_antibody_ms); `stopped` lists those that ran out; `files_capped`, the files where one stopped at its 200 matches per file (`total` is a floor there).',
  handler: async (args, call) => {
    const { graph, engine } = await structureCall(call);
    const deadline = new Deadline(args.time_budget_ms ?? 15_000, call.signal);
    const scope = scopeFilter(engine, args.scope);
    const rank = (s: string) => SEVERITIES.indexOf(s as never);
    const wanted = args.antibody_ids?.length ? new Set(args.antibody_ids) : null;
    const antibodies = listAntibodies(graph).filter((a) => a.enabled && (!wanted || wanted.has(a.id)) && rank(a.severity) >= rank(args.min_severity ?? 'info'));
    const perAntibody = args.max_matches_per_antibody ?? 50;
    const matches: Match[] = [];
    const stopped: string[] = [];
    // Files where a query antibody stopped at the per-file match limit: `total` is a floor there.
    const filesCapped: CappedFiles = { limit: MAX_MATCHES_PER_RULE_FILE, count: 0, sample: [] };
    // Every match found, before max_matches_per_antibody keeps the best of each antibody.
    let found = 0;
    const capped: { antibody: string; found: number; kept: number }[] = [];
    const keep = (id: string, list: readonly Match[]) => {
      found += list.length;
      if (list.length > perAntibody) capped.push({ antibody: id, found: list.length, kept: perAntibody });
      matches.push(...list.slice(0, perAntibody));
    };
    // Shape antibodies whose own min_similarity overrode a lower similarity_threshold of the call.
    const raised: { antibody: string; threshold: number }[] = [];
    const shapeAntibodies = antibodies.filter((a) => a.kind === 'shape');
    if (shapeAntibodies.length > 0) {
      const kinds = new Set(shapeAntibodies.map((a) => engine.graph.get(a.origin!)?.kind ?? 'function'));
      // Every symbol against every shape antibody, paced: one pass over the Python standard library's
      // 58,759 functions held the loop 80–95 ms.
      let step = 0;
      const symbols: GraphNode[] = [];
      for (const [, n] of engine.graph.nodes()) {
        if ((++step & 1023) === 0) await deadline.pace();
        if ((kinds.has(n.kind) || n.kind === 'function' || n.kind === 'method') && scope.has(n.path) && n.language !== 'markdown') symbols.push(n);
      }
      const { shapes } = await collectShapes(graph, symbols, deadline);
      for (const a of shapeAntibodies) {
        const pattern = Int32Array.from(a.shingles!);
        const threshold = Math.max(args.similarity_threshold ?? 0.7, a.min_similarity);
        if (args.similarity_threshold !== undefined && a.min_similarity > args.similarity_threshold) raised.push({ antibody: a.id, threshold: a.min_similarity });
        const hits: Match[] = [];
        for (const s of symbols) {
          if ((++step & 255) === 0) await deadline.pace();
          if (s.id === a.origin) continue;
          const shape = shapes.get(s.id);
          if (!shape) continue;
          // The exact Jaccard when it reaches the threshold, else −1 as soon as it cannot (most symbols).
          const similarity = jaccardAtLeast(pattern, shape.shingles, threshold);
          if (similarity < threshold) continue;
          hits.push({ antibody: a.id, name: a.name, severity: a.severity, node: s.id, file: s.path, lines: [s.startLine, s.endLine], similarity: round(similarity), confidence: round(similarity * (0.5 + 0.5 * a.specificity)) });
        }
        hits.sort((x, y) => y.confidence - x.confidence);
        keep(a.id, hits);
        await deadline.pace();
      }
    }
    for (const a of antibodies.filter((x) => x.kind === 'query')) {
      if (deadline.spent()) {
        stopped.push(a.id);
        continue;
      }
      const own = new Deadline(Math.min(args.per_antibody_ms ?? 2000, Math.max(50, deadline.ms - deadline.elapsed())), call.signal);
      const outcome = await runScan(graph, { presets: [], custom: rulesOf({ name: a.id, query: a.query, language: a.language }), inScope: scope.has, severityMin: 0, graphValidate: true, deadline: own });
      if (own.report().stopped_early) stopped.push(a.id);
      if (outcome.files_capped) {
        filesCapped.count += outcome.files_capped.count;
        filesCapped.sample.push(...outcome.files_capped.sample.slice(0, 10 - filesCapped.sample.length).map((x) => ({ ...x, rule: a.id })));
      }
      keep(a.id, outcome.findings.map((f) => ({ antibody: a.id, name: a.name, severity: a.severity, ...(f.node ? { node: f.node } : {}), file: f.file, lines: f.lines, similarity: 1, confidence: round(0.5 + 0.5 * a.specificity), code: f.code })));
    }
    matches.sort((x, y) => rank(y.severity) - rank(x.severity) || y.confidence - x.confidence || x.file.localeCompare(y.file));
    const { kept, report } = packToTokenBudget(matches.slice(0, args.max_matches ?? 50), args.token_budget ?? 3000);
    return {
      antibodies_scanned: antibodies.length,
      matches: kept,
      total: found,
      ...(capped.length ? { capped } : {}),
      ...(filesCapped.count ? { files_capped: filesCapped } : {}),
      ...(raised.length ? { thresholds_raised: raised, note: "these antibodies match at their own min_similarity, above similarity_threshold: to lower it, delete one and create it again with pattern.min_similarity" } : {}),
      ...(stopped.length ? { stopped } : {}),
      budget: report,
      time: deadline.report('shape matching stopped before every file was parsed'),
    };
  },
});

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
