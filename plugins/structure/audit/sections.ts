/**
 * The sections an audit composes, each a call of another verb through the host's pipeline
 * (`call.invoke`), its result cut to what a report needs, and the recommendations it supports.
 */
import type { PresetName } from '../code-rules.ts';

/** The audit's scans keep findings of at least this severity. */
const SCAN_SEVERITY_MIN = 0.5;

export const PROFILES = ['quick', 'architecture', 'security', 'full'] as const;
export type Profile = (typeof PROFILES)[number];

export interface SectionSpec {
  name: string;
  verb: string;
  profiles: readonly Profile[];
  /** Needs git history (skipped without it). */
  git?: boolean;
  /** Least time budget worth starting it with (ms); skipped with less left. */
  minMs?: number;
  args: (o: AuditOptions) => Record<string, unknown>;
  /** The parts of the result the report keeps. */
  digest: (r: Record<string, any>) => Record<string, unknown>;
  /** Recommendations from the result, most urgent first. */
  advise?: (r: Record<string, any>) => Recommendation[];
}

export interface AuditOptions {
  scope?: string;
  presets: readonly PresetName[] | null;
  budgetMs: number;
}

export interface Recommendation {
  priority: 'high' | 'medium' | 'low';
  section: string;
  what: string;
  next: string;
}

const scoped = (o: AuditOptions, key = 'scope') => (o.scope ? { [key]: o.scope } : {});
const top = <T>(list: T[] | undefined, n: number) => (Array.isArray(list) ? list.slice(0, n) : []);

export const SECTIONS: readonly SectionSpec[] = [
  {
    name: 'health',
    verb: 'health',
    profiles: PROFILES,
    args: () => ({}),
    digest: (r) => ({ status: r.status, counts: r.counts, ...(r.graph ? { graph: r.graph } : {}) }),
    advise: (r) => (r.status && r.status !== 'ok' ? [{ priority: 'high', section: 'health', what: `the server reports ${r.status}`, next: 'health (read its notes), doctor' }] : []),
  },
  {
    name: 'cross_verify',
    verb: 'cross_verify',
    profiles: PROFILES,
    args: (o) => ({ ...scoped(o) }),
    digest: (r) => ({ checked_files: r.checked_files, stale_count: r.stale_count, stale: top(r.stale, 5), verdict: r.verdict }),
    advise: (r) => (r.stale_count > 0 ? [{ priority: 'high', section: 'cross_verify', what: `${r.stale_count} file(s) differ between the graph and the disk: every other section reads a stale graph there`, next: 'ingest (incremental), then audit again' }] : []),
  },
  {
    name: 'layers',
    verb: 'layers',
    minMs: 300,
    profiles: ['quick', 'architecture', 'full'],
    args: (o) => ({ ...scoped(o), violation_limit: 10, token_budget: 1500, time_budget_ms: Math.min(o.budgetMs, 20_000) }),
    digest: (r) => ({ units: r.units, layer_count: r.layer_count, cycles: r.cycles, violation_counts: r.violation_counts, violations: top(r.violations, 5).map((v: any) => ({ kind: v.kind, from: v.from, to: v.to, why: v.why })) }),
    advise: (r) => {
      const out: Recommendation[] = [];
      const up = (r.violations ?? []).filter((v: any) => v.kind === 'upward');
      if (up.length) out.push({ priority: 'high', section: 'layers', what: `${r.violation_counts?.upward ?? up.length} upward dependenc(ies), worst ${up[0].from} → ${up[0].to}`, next: `layer_inspect, then invert or move the dependency (xray_gate before the edit)` });
      if (r.cycles > 0) out.push({ priority: 'medium', section: 'layers', what: `${r.cycles} dependency cycle(s)`, next: 'layers (violations of kind cycle), refactor_plan on the cycle' });
      return out;
    },
  },
  {
    name: 'xray',
    verb: 'xray_orient',
    minMs: 300,
    profiles: ['architecture', 'full'],
    args: (o) => ({ ...scoped(o), top_k: 5, token_budget: 1500, time_budget_ms: Math.min(o.budgetMs, 20_000) }),
    digest: (r) => ({ manifest: r.manifest, conforms: r.conforms, violation_counts: r.violation_counts, erosion_candidates: top(r.erosion_candidates, 5).map((c: any) => ({ file: c.file, layer: c.layer, kinds: c.kinds })), missing_required: r.missing_required }),
    advise: (r) => (r.conforms === false && r.erosion_candidates?.length ? [{ priority: 'high', section: 'xray', what: `the code breaks the layer manifest; worst erosion candidate ${r.erosion_candidates[0].file}`, next: 'xray_orient, then xray_gate before editing it' }] : []),
  },
  {
    name: 'scan_all',
    verb: 'scan_all',
    minMs: 1000,
    profiles: ['quick', 'security', 'full'],
    args: (o) => ({ ...scoped(o), ...(o.presets ? { patterns: [...o.presets] } : {}), severity_min: SCAN_SEVERITY_MIN, limit_per_pattern: 5, token_budget: 2000, time_budget_ms: Math.min(o.budgetMs, 60_000) }),
    digest: (r) => ({
      // The counts are of findings at or above this severity: scan_all's default (0.3) counts more.
      severity_min: SCAN_SEVERITY_MIN,
      counts: r.counts,
      files_scanned: r.files_scanned,
      files_total: r.files_total,
      worst: Object.values(r.findings ?? {})
        .flat()
        .sort((a: any, b: any) => b.severity - a.severity)
        .slice(0, 8)
        .map((f: any) => ({ pattern: f.pattern, file: f.file, lines: f.lines, severity: f.severity, message: f.message })),
      ...(r.time?.stopped_early ? { stopped_early: true } : {}),
    }),
    advise: (r) => {
      const worst = Object.values(r.findings ?? {})
        .flat()
        .filter((f: any) => f.severity >= 0.7)
        .sort((a: any, b: any) => b.severity - a.severity) as any[];
      return worst.length ? [{ priority: worst[0].severity >= 0.8 ? 'high' : 'medium', section: 'scan_all', what: `${worst.length} finding(s) of severity ≥ 0.7, first ${worst[0].file}:${worst[0].lines?.[0]} (${worst[0].message})`, next: `scan with pattern "${worst[0].pattern}" for the full list` }] : [];
    },
  },
  {
    name: 'panoramic',
    verb: 'panoramic',
    minMs: 300,
    profiles: ['architecture', 'full'],
    args: (o) => ({ ...scoped(o), top_n: 5 }),
    digest: (r) => ({ files_scored: r.files_scored, riskiest: top(r.files, 5).map((f: any) => ({ file: f.file, risk: f.risk, transitive_dependents: f.transitive_dependents })), ...(r.note ? { note: r.note } : {}) }),
    advise: (r) => (r.files?.[0]?.risk >= 0.6 ? [{ priority: 'medium', section: 'panoramic', what: `${r.files[0].file} carries the most risk (${r.files[0].risk}: blast, centrality, churn)`, next: `impact on ${r.files[0].file} before changing it; add tests around it` }] : []),
  },
  {
    name: 'external_references',
    verb: 'external_references',
    profiles: ['architecture', 'security', 'full'],
    args: (o) => ({ ...scoped(o), top_k: 5 }),
    digest: (r) => ({ total: r.total, roots: top(r.roots, 5) }),
    advise: (r) => (r.total > 0 ? [{ priority: 'low', section: 'external_references', what: `${r.total} reference(s) to paths outside the workspace (${(r.roots ?? []).slice(0, 3).map((x: any) => x.root).join(', ')})`, next: 'external_references for the list; federate the repositories they point at' }] : []),
  },
  {
    name: 'trust',
    verb: 'trust',
    minMs: 300,
    profiles: ['architecture', 'full'],
    git: true,
    args: (o) => ({ ...scoped(o, 'node_filter'), top_k: 5 }),
    digest: (r) => ({ scored: r.scored, least_trusted: top(r.files, 5) }),
    advise: (r) => (r.files?.length ? [{ priority: 'medium', section: 'trust', what: `${r.files[0].file ?? r.files[0].path ?? 'a file'} has the worst fix history`, next: 'trust for the ranking; review and test those files first' }] : []),
  },
  {
    name: 'tremor',
    verb: 'tremor',
    minMs: 300,
    profiles: ['architecture', 'full'],
    git: true,
    args: (o) => ({ ...scoped(o, 'node_filter'), top_k: 5 }),
    digest: (r) => ({ accelerating_count: r.accelerating_count, tremors: top(r.tremors, 5) }),
    advise: (r) => (r.accelerating_count > 0 ? [{ priority: 'low', section: 'tremor', what: `${r.accelerating_count} file(s) change faster and faster`, next: 'tremor for the list; stabilise their interfaces' }] : []),
  },
];
