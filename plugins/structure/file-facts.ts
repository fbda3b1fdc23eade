/**
 * What the scans and `twins` read from one file, computed from a single parse: every built-in
 * rule's findings (all of the language's rule queries compiled into one query, so the tree is
 * walked once, not once per rule) and the normalised shape of every definition (one pre-order walk
 * of the whole file: a definition's tokens are a contiguous run of the file's token sequence).
 * Pure: runs in a facts worker (facts-worker.ts) or in-process for a few files.
 */
import type { Language } from '../graph/api.ts';
import { excerpt, linesOf, parseCode, type Node, type ParsedFile } from './code-trees.ts';
import { CODE_RULES, type CodeRule, type RuleContext } from './code-rules.ts';
import { definitionShapes, type DefinitionShape } from './definition-shapes.ts';

/** A finding before graph validation. */
export interface RawFinding {
  pattern: string;
  rule: string;
  file: string;
  lines: [number, number];
  severity: number;
  message: string;
  code: string;
  /**
   * Set only by findings computed with class names deferred (`deferredClasses`): the class name the
   * rule's check asked about, which the reader looks up in the graph's classes (the finding stands
   * only when it is one).
   */
  needsClass?: string;
  /**
   * Set only on an anchored rule's findings computed with class names deferred, which are kept
   * uncapped in the order the anchors found them: [anchor ordinal, root start, root end], what
   * `capAnchored` needs to cap and order them as a run with the class names would have.
   */
  order?: [number, number, number];
}

export interface FileFacts {
  /** Findings per built-in rule id; every built-in rule of the language ran (absent = none). */
  findings: Record<string, RawFinding[]>;
  /** Definitions in pre-order. */
  defs: DefinitionShape[];
}

export const MAX_MATCHES_PER_RULE_FILE = 200;
/** The built-in rules of a language, in a stable order. */
export function builtinRules(language: Language): CodeRule[] {
  return CODE_RULES.filter((r) => r.languages.includes(language));
}

/** The language's rules without an anchor, their queries as one source, with the rule of each pattern index. */
const combined = new Map<Language, { source: string; ruleOfPattern: CodeRule[] } | null>();

/**
 * The combined query of the language's rules that have no anchor (those walk the whole tree),
 * compiled once. Each pattern's rule comes from where the pattern starts in the combined source,
 * so the rules' own queries are never compiled one by one.
 */
function combinedRules(parsed: ParsedFile): { query: ReturnType<ParsedFile['query']>; ruleOfPattern: CodeRule[] } | null {
  let c = combined.get(parsed.language);
  if (c === undefined) {
    const rules = builtinRules(parsed.language).filter((r) => !r.anchor);
    if (rules.length === 0) c = null;
    else {
      const source = rules.map((r) => r.query).join('\n');
      const starts: number[] = [];
      let offset = 0;
      for (const r of rules) {
        starts.push(offset);
        offset += Buffer.byteLength(r.query) + 1;
      }
      const query = parsed.query(source);
      const ruleOfPattern: CodeRule[] = [];
      for (let k = 0, n = query.patternCount(); k < n; k++) {
        const at = query.startIndexForPattern(k);
        let i = starts.length - 1;
        while (i > 0 && starts[i] > at) i--;
        ruleOfPattern.push(rules[i]);
      }
      c = { source, ruleOfPattern };
    }
    combined.set(parsed.language, c);
  }
  return c ? { query: parsed.query(c.source), ruleOfPattern: c.ruleOfPattern } : null;
}

const rootSets = new WeakMap<CodeRule, ReadonlySet<string>>();

/**
 * An anchored rule's findings: its query runs only on the nearest `roots`-typed ancestor of each
 * anchor match (maxStartDepth 0: patterns rooted at that node), not over the whole tree — a walk of
 * every node costs about a third of the parse, an anchored rule a few calls per candidate.
 */
function runAnchored(rule: CodeRule, parsed: ParsedFile, text: string, ctx: RuleContext, path: string, out: RawFinding[]): void {
  const anchor = rule.anchor!;
  let roots = rootSets.get(rule);
  if (!roots) rootSets.set(rule, (roots = new Set(anchor.roots)));
  const query = parsed.query(rule.query);
  const root = parsed.tree.rootNode;
  const tried = new Set<number>();
  const seen = new Set<number>();
  const found: { at: number; end: number; f: RawFinding }[] = [];
  const into: RawFinding[] = [];
  const deferred = ctx.classNames instanceof DeferredClasses ? ctx.classNames : null;
  let ordinal = 0;
  for (const m of text.matchAll(anchor.at)) {
    if (anchor.keep && !anchor.keep(m, text)) continue;
    let n = root.descendantForIndex(m.index, m.index + 1);
    while (n && !roots.has(n.type)) n = n.parent;
    if (!n || tried.has(n.id)) continue;
    tried.add(n.id);
    for (const match of query.matches(n, { maxStartDepth: 0, matchLimit: 4096 })) {
      if (!accept(rule, match.captures, ctx, path, seen, into)) continue;
      found.push({ at: n.startIndex, end: n.endIndex, f: into[into.length - 1] });
      if (deferred) into[into.length - 1].order = [ordinal, n.startIndex, n.endIndex];
    }
    ordinal++;
    if (deferred) {
      // Which findings stand is known only with the class names: all are kept (within a bound) for capAnchored.
      if (found.length >= DEFERRED_CAP) {
        deferred.ambiguous = true;
        break;
      }
    } else if (found.length >= MAX_MATCHES_PER_RULE_FILE) break;
  }
  if (deferred) {
    for (const x of found) out.push(x.f);
    return;
  }
  // In the whole-tree query's order: pre-order of the pattern's root node.
  found.sort((a, b) => a.at - b.at || b.end - a.end);
  for (const x of found.slice(0, MAX_MATCHES_PER_RULE_FILE)) out.push(x.f);
}

/** Findings an anchored rule keeps at most per file when class names are deferred (beyond: the file is left to the scan). */
const DEFERRED_CAP = 20 * MAX_MATCHES_PER_RULE_FILE;

/**
 * An anchored rule's deferred findings (with `order`), those `keep` accepts, capped and ordered as
 * `runAnchored` does with the class names known: anchors are taken in order until the accepted
 * findings reach the cap, then sorted in the whole-tree query's order and cut to the cap.
 */
export function capAnchored(list: readonly RawFinding[], keep: (f: RawFinding) => boolean): RawFinding[] {
  const found: RawFinding[] = [];
  for (let i = 0; i < list.length; ) {
    const ordinal = list[i].order![0];
    for (; i < list.length && list[i].order![0] === ordinal; i++) if (keep(list[i])) found.push(list[i]);
    if (found.length >= MAX_MATCHES_PER_RULE_FILE) break;
  }
  found.sort((a, b) => a.order![1] - b.order![1] || b.order![2] - a.order![2]);
  return found.slice(0, MAX_MATCHES_PER_RULE_FILE);
}

/** Runs one rule's compiled query over a tree (custom rules and antibodies). */
export function runRuleQuery(rule: CodeRule, parsed: ParsedFile, ctx: RuleContext, path: string): RawFinding[] {
  const out: RawFinding[] = [];
  const seen = new Set<number>();
  for (const match of parsed.query(rule.query).matches(parsed.tree.rootNode, { matchLimit: 4096 })) {
    if (!accept(rule, match.captures, ctx, path, seen, out)) continue;
    if (out.length >= MAX_MATCHES_PER_RULE_FILE) break;
  }
  return out;
}

function accept(rule: CodeRule, list: readonly { name: string; node: Node }[], ctx: RuleContext, path: string, seen: Set<number>, out: RawFinding[]): boolean {
  const captures: Record<string, Node> = {};
  for (const c of list) captures[c.name] ??= c.node;
  const hit = captures.hit ?? list[0]?.node;
  if (!hit || seen.has(hit.id)) return false;
  const deferred = ctx.classNames instanceof DeferredClasses ? ctx.classNames : null;
  deferred?.reset();
  const verdict = rule.check ? rule.check({ ...captures, hit }, ctx) : true;
  if (verdict === false) return false;
  seen.add(hit.id);
  const refined = typeof verdict === 'object' ? verdict : {};
  const finding: RawFinding = { pattern: rule.preset, rule: rule.id, file: path, lines: linesOf(hit), severity: refined.severity ?? rule.severity, message: refined.message ?? rule.message, code: excerpt(hit) };
  if (deferred?.asked !== undefined) finding.needsClass = deferred.asked;
  out.push(finding);
  return true;
}

/**
 * Class names not known yet (an ingest's parse, before the graph exists): every name counts as a
 * class, and the one a check asked about is kept on its finding (`needsClass`) for the reader to
 * look up. A check that asks about two names in one finding makes `ambiguous` true (the reader
 * then cannot decide from one name, and computes the file's facts itself).
 */
export class DeferredClasses extends Set<string> {
  asked: string | undefined;
  ambiguous = false;

  reset(): void {
    this.asked = undefined;
  }

  override has(name: string): boolean {
    if (this.asked !== undefined && this.asked !== name) this.ambiguous = true;
    this.asked = name;
    return true;
  }
}

/** Every built-in rule's findings in a parsed file (rules whose `needs` is absent from the text skip). */
export function findingsOf(parsed: ParsedFile, text: string, path: string, classNames: ReadonlySet<string>): Record<string, RawFinding[]> {
  const findings: Record<string, RawFinding[]> = {};
  const live = builtinRules(parsed.language).filter((r) => !r.needs || r.needs.test(text));
  const ctx: RuleContext = { classNames, text };
  if (live.some((r) => !r.anchor)) {
    const c = combinedRules(parsed)!;
    const seen = new Map<CodeRule, Set<number>>();
    for (const match of c.query.matches(parsed.tree.rootNode, { matchLimit: 4096 })) {
      const rule = c.ruleOfPattern[match.patternIndex];
      if (!rule || !live.includes(rule)) continue;
      const out = (findings[rule.id] ??= []);
      if (out.length >= MAX_MATCHES_PER_RULE_FILE) continue;
      let s = seen.get(rule);
      if (!s) seen.set(rule, (s = new Set()));
      accept(rule, match.captures, ctx, path, s, out);
    }
  }
  for (const rule of live) if (rule.anchor) runAnchored(rule, parsed, text, ctx, path, (findings[rule.id] ??= []));
  for (const [id, list] of Object.entries(findings)) if (list.length === 0) delete findings[id];
  return findings;
}

/** Facts of one file's text; null for a language the scans do not parse. */
export async function computeFacts(language: Language, text: string, path: string, classNames: ReadonlySet<string>): Promise<FileFacts | null> {
  const parsed = await parseCode(language, text);
  if (!parsed) return null;
  try {
    return { findings: findingsOf(parsed, text, path, classNames), defs: definitionShapes(parsed.tree.rootNode, parsed.language) };
  } finally {
    parsed.done();
  }
}
