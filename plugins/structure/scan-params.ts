/** What `scan` and `scan_all` share: custom patterns (from the call or the config) and the result shape. */
import { packToTokenBudgetPaced, StringEnum, Type, type BudgetReport } from '../../core/index.ts';
import type { Language } from '../graph/api.ts';
import { CODE_LANGUAGES } from './code-trees.ts';
import type { CodeRule } from './code-rules.ts';
import { customRule, type Finding } from './scanner.ts';

/** A custom pattern as the config or a call gives it. */
export interface PatternSpec {
  name: string;
  query?: string;
  language?: Language;
  keywords?: string[];
  severity?: number;
}

/** Schema of one custom pattern (config `options.structure.patterns`). */
export const PatternSpecSchema = Type.Object({
  name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,40}$', description: 'Pattern name' }),
  query: Type.Optional(Type.String({ maxLength: 4000, description: 'A tree-sitter query; @hit marks the reported node' })),
  language: Type.Optional(StringEnum([...CODE_LANGUAGES], { description: 'Language of the query (default typescript/javascript)' })),
  keywords: Type.Optional(Type.Array(Type.String({ maxLength: 80 }), { maxItems: 50, description: 'Identifiers to find in code (not comments or strings)' })),
  severity: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.5 })),
});

/** The rules of a custom pattern. */
export function rulesOf(spec: PatternSpec): CodeRule[] {
  return customRule(spec);
}

/** Findings packed into a token budget, with the counts an agent needs to ask for more. */
export async function packFindings(findings: readonly Finding[], tokenBudget: number, pace: () => Promise<void>): Promise<{ findings: Finding[]; budget: BudgetReport }> {
  const { kept, report } = await packToTokenBudgetPaced(findings, tokenBudget, pace);
  return { findings: kept, budget: report };
}

/** `files_capped` of scan, scan_all and antibody_scan: files where a rule stopped at its per-file match limit. */
export const FilesCapped = Type.Object({
  limit: Type.Number(),
  count: Type.Number(),
  sample: Type.Array(Type.Object({ file: Type.String(), rule: Type.String() })),
});
