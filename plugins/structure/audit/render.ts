/** An audit as Markdown, and cut to a token budget (lists shortened first, then section details dropped). */
import { countTokens, countValueTokens } from '../../../core/index.ts';
import type { Recommendation } from './sections.ts';

export interface AuditReport {
  profile: string;
  profile_reason: string;
  scope: string | null;
  recommendations: Recommendation[];
  sections: Record<string, Record<string, unknown>>;
  skipped: { section: string; reason: string }[];
  time: { elapsed_ms: number; time_budget_ms: number; stopped_early: boolean };
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v !== 'object') return String(v);
  return JSON.stringify(v).replace(/"([a-z_]+)":/g, '$1: ');
}

/** The report as Markdown. */
export function toMarkdown(r: AuditReport): string {
  const out: string[] = [`# Audit${r.scope ? ` of ${r.scope}` : ''} — profile ${r.profile}`, '', `_${r.profile_reason}; ${r.time.elapsed_ms} ms of ${r.time.time_budget_ms} ms${r.time.stopped_early ? ', stopped early' : ''}_`, ''];
  out.push('## Recommendations', '');
  if (r.recommendations.length === 0) out.push('None: no section found anything to act on.');
  for (const rec of r.recommendations) out.push(`- **${rec.priority}** (${rec.section}) ${rec.what} → ${rec.next}`);
  for (const [name, digest] of Object.entries(r.sections)) {
    out.push('', `## ${name}`, '');
    for (const [k, v] of Object.entries(digest)) {
      if (Array.isArray(v)) {
        out.push(`- ${k}:${v.length ? '' : ' none'}`);
        for (const item of v) out.push(`  - ${cell(item)}`);
      } else out.push(`- ${k}: ${cell(v)}`);
    }
  }
  if (r.skipped.length) {
    out.push('', '## Skipped', '');
    for (const s of r.skipped) out.push(`- ${s.section}: ${s.reason}`);
  }
  return out.join('\n');
}

function shorten(sections: AuditReport['sections'], n: number): AuditReport['sections'] {
  const cut = (v: unknown): unknown => (Array.isArray(v) ? v.slice(0, n) : v);
  return Object.fromEntries(Object.entries(sections).map(([k, d]) => [k, Object.fromEntries(Object.entries(d).map(([f, v]) => [f, cut(v)]))]));
}

/** The report within `budget` tokens (as Markdown or JSON): lists cut to 3, then 1, then section details dropped. */
export function fitReport(r: AuditReport, budget: number, markdown: boolean): { report: AuditReport; tokens: number; cut: string | null } {
  const size = (x: AuditReport) => (markdown ? countTokens(toMarkdown(x)) : countValueTokens(x));
  let tokens = size(r);
  if (tokens <= budget) return { report: r, tokens, cut: null };
  for (const n of [3, 1]) {
    const next = { ...r, sections: shorten(r.sections, n) };
    tokens = size(next);
    if (tokens <= budget) return { report: next, tokens, cut: `lists cut to ${n} item(s)` };
  }
  const bare = { ...r, sections: Object.fromEntries(Object.keys(r.sections).map((k) => [k, { detail: `dropped for token_budget: call ${k} directly` }])) };
  return { report: bare, tokens: size(bare), cut: 'section details dropped' };
}
