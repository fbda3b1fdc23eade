/** audit: one call composing health, disk verification, layers, xray, scans, risk, external references and git trust/tremor, with recommendations. */
import { AgentId, defineVerb, StringEnum, toolContent, Type } from '../../../core/index.ts';
import { PRESETS, type PresetName } from '../code-rules.ts';
import { CODE_LANGUAGES } from '../code-trees.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { fitReport, toMarkdown, type AuditReport } from '../audit/render.ts';
import { PROFILES, SECTIONS, type Profile, type Recommendation } from '../audit/sections.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';

/** Above this many code files, `auto` leaves the pattern scans out (a cold scan parses every file). */
const FULL_MAX_FILES = 2000;
const RANK = { high: 0, medium: 1, low: 2 } as const;

export const auditVerb = defineVerb({
  name: 'audit',
  description: 'One-call audit by profile: health, graph-vs-disk, layers, xray manifest, pattern scans, risk, external refs, git trust/tremor; recommendations; Markdown.',
  input: Type.Object({
    agent_id: AgentId,
    path: ScopeParam,
    profile: Type.Optional(StringEnum(['auto', ...PROFILES], { default: 'auto', description: 'Sections to run (auto: by repository size)' })),
    scan_patterns: Type.Optional(Type.Array(StringEnum([...PRESETS]), { maxItems: PRESETS.length, description: 'Scan presets (default all)' })),
    cross_verify: Type.Optional(Type.Boolean({ default: true, description: 'Check the graph against the disk' })),
    include_git: Type.Optional(Type.Boolean({ default: true, description: 'trust/tremor from git history' })),
    external_refs: Type.Optional(Type.Boolean({ default: true, description: 'References leaving the workspace' })),
    report_format: Type.Optional(StringEnum(['markdown', 'json'], { default: 'markdown', description: 'Markdown text or JSON' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 300, maximum: 20_000, default: 3000, description: 'Report size bound' })),
    time_budget_ms: timeBudgetParam(60_000),
  }),
  tiers: ['full'],
  effect: 'read',
  timeoutMs: 125_000,
  stages: ['orient', 'review'],
  guide:
    'Profiles: quick (health, cross_verify, layers, scan_all), architecture (health, cross_verify, layers, xray_orient, panoramic, external_references, trust, tremor), security (health, cross_verify, scan_all, external_references), full (all). auto picks full up to 2,000 code files, else architecture. Each section is the named verb called through the server (same gates), cut to its key figures; a section is skipped, with the reason, when its verb is missing, fails (no git history, no layer manifest), or the time budget is spent.',
  handler: async (args, call) => {
    const { engine } = await structureCall(call);
    const deadline = new Deadline(args.time_budget_ms ?? 60_000, call.signal);
    const scope = scopeFilter(engine, args.path);
    let profile: Profile;
    let reason: string;
    if (args.profile && args.profile !== 'auto') {
      profile = args.profile;
      reason = 'profile given';
    } else {
      let files = 0;
      for (const [, n] of engine.graph.nodes()) if (n.kind === 'file' && n.language && CODE_LANGUAGES.includes(n.language) && scope.has(n.path)) files++;
      profile = files <= FULL_MAX_FILES ? 'full' : 'architecture';
      reason = `auto: ${files} code file(s) ${files <= FULL_MAX_FILES ? `≤ ${FULL_MAX_FILES}` : `> ${FULL_MAX_FILES}, pattern scans left out`}`;
    }
    const report: AuditReport = { profile, profile_reason: reason, scope: scope.prefix, recommendations: [], sections: {}, skipped: [], time: { elapsed_ms: 0, time_budget_ms: deadline.ms, stopped_early: false } };
    const recommendations: Recommendation[] = [];
    const presets = (args.scan_patterns?.length ? args.scan_patterns : null) as PresetName[] | null;
    for (const spec of SECTIONS) {
      if (!spec.profiles.includes(profile)) continue;
      if (spec.name === 'cross_verify' && args.cross_verify === false) {
        report.skipped.push({ section: spec.name, reason: 'cross_verify: false' });
        continue;
      }
      if (spec.name === 'external_references' && args.external_refs === false) {
        report.skipped.push({ section: spec.name, reason: 'external_refs: false' });
        continue;
      }
      if (spec.git && args.include_git === false) {
        report.skipped.push({ section: spec.name, reason: 'include_git: false' });
        continue;
      }
      const remaining = Math.floor(deadline.ms - deadline.elapsed());
      if (deadline.spent() || remaining < (spec.minMs ?? 1)) {
        report.skipped.push({ section: spec.name, reason: deadline.spent() ? 'time budget spent' : `time budget: ${remaining} ms left, ${spec.verb} needs ≥ ${spec.minMs} ms` });
        continue;
      }
      const t = performance.now();
      const r = await call.invoke(spec.verb, spec.args({ scope: scope.prefix ?? undefined, presets, budgetMs: Math.max(50, remaining) }));
      if (!r.ok) {
        const missing = r.error.code === 'M1ND_ERR_CALL_UNKNOWN_VERB';
        report.skipped.push({ section: spec.name, reason: missing ? `${spec.verb} is not available in this server` : `${r.error.code}: ${r.error.message}` });
        continue;
      }
      report.sections[spec.name] = { ...spec.digest(r.value), elapsed_ms: Math.round(performance.now() - t) };
      if (spec.advise) recommendations.push(...spec.advise(r.value));
    }
    report.recommendations = recommendations.sort((a, b) => RANK[a.priority] - RANK[b.priority]);
    report.time = deadline.report('sections skipped') as AuditReport['time'];
    const markdown = (args.report_format ?? 'markdown') === 'markdown';
    const fitted = fitReport(report, args.token_budget ?? 3000, markdown);
    if (!markdown) return { ...fitted.report, budget: { tokens: fitted.tokens, token_budget: args.token_budget ?? 3000, cut: fitted.cut } };
    const text = toMarkdown(fitted.report) + (fitted.cut ? `\n\n_${fitted.cut} to fit token_budget ${args.token_budget ?? 3000}_` : '');
    return toolContent({ type: 'text', text });
  },
});
