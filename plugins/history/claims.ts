/**
 * Structural claims in plain words, parsed into a kind and its subject/object texts:
 * "A calls B", "A never calls B", "A depends on B", "A does not depend on B", "A imports B",
 * "X is isolated", "A always runs before B", "A changes with B".
 */

export const CLAIM_KINDS = ['calls', 'never_calls', 'depends_on', 'no_dependency', 'imports', 'isolated', 'always_before', 'co_changes'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** A parsed claim. */
export interface ParsedClaim {
  kind: ClaimKind;
  subject: string;
  object: string | null;
}

const PATTERNS: [RegExp, ClaimKind][] = [
  [/^(.+?)\s+(?:never|does\s+not|doesn't|do\s+not|don't)\s+(?:ever\s+)?(?:calls?|invokes?)\s+(.+)$/i, 'never_calls'],
  [/^(.+?)\s+(?:does\s+not|doesn't|never|do\s+not|don't)\s+(?:depends?\s+on|imports?|uses?)\s+(.+)$/i, 'no_dependency'],
  [/^(.+?)\s+(?:always\s+)?runs\s+before\s+(.+)$/i, 'always_before'],
  [/^(.+?)\s+(?:is\s+always\s+called\s+before|precedes|guards|dominates)\s+(.+)$/i, 'always_before'],
  [/^(.+?)\s+(?:co-?changes|changes\s+(?:together\s+)?with|is\s+coupled\s+to)\s+(.+)$/i, 'co_changes'],
  [/^(.+?)\s+(?:calls|invokes|reaches)\s+(.+)$/i, 'calls'],
  [/^(.+?)\s+imports\s+(.+)$/i, 'imports'],
  [/^(.+?)\s+(?:depends\s+on|uses|requires)\s+(.+)$/i, 'depends_on'],
  [/^(.+?)\s+is\s+(?:isolated|unused|dead(?:\s+code)?|unreferenced)$/i, 'isolated'],
];

/** Strips quotes, backticks, "the function" and a call's parentheses from a node mention. */
export function cleanMention(text: string): string {
  return text
    .trim()
    .replace(/[.?!]+$/, '')
    .replace(/^(?:the\s+)?(?:function|method|class|module|file|type)\s+/i, '')
    .replace(/^[`'"]+|[`'"]+$/g, '')
    .replace(/\(\)$/, '')
    .trim();
}

/** Parses a claim, or null when no pattern fits. */
export function parseClaim(claim: string): ParsedClaim | null {
  const text = claim.trim().replace(/\s+/g, ' ');
  for (const [re, kind] of PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    return { kind, subject: cleanMention(m[1]), object: m[2] !== undefined ? cleanMention(m[2]) : null };
  }
  return null;
}
