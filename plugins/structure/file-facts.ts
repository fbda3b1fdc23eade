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
import { walkTree } from './tree-walk.ts';

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

/** A normalised AST shape: 5-token shingles of the pre-order node types (names and literals drop out). */
export interface Shape {
  /** Sorted distinct shingle hashes. */
  shingles: Int32Array;
  tokens: number;
  /** Its MinHash signature (minhash.ts), when whoever made the shape computed it. */
  minhash?: Int32Array;
}

/** One definition node of the file and its shape. */
export interface DefinitionShape extends Shape {
  /** 0-based start and end rows. */
  row: number;
  endRow: number;
}

/** Int32 slots `definitions` take when written by `writeDefinitions`. */
export function definitionsSize(defs: readonly DefinitionShape[]): number {
  let size = 0;
  for (const d of defs) size += 4 + d.shingles.length;
  return size;
}

/** Writes `defs` into `out` from `at` as [row, end row, tokens, shingle count, shingles…] each; returns the next position. */
export function writeDefinitions(out: Int32Array, at: number, defs: readonly DefinitionShape[]): number {
  for (const d of defs) {
    out[at++] = d.row;
    out[at++] = d.endRow;
    out[at++] = d.tokens;
    out[at++] = d.shingles.length;
    out.set(d.shingles, at);
    at += d.shingles.length;
  }
  return at;
}

/** Reads `count` definitions `writeDefinitions` wrote from `at` (shingles as views of `data`) into `into`; returns the next position. */
export function readDefinitions(data: Int32Array, at: number, count: number, into: DefinitionShape[]): number {
  for (let k = 0; k < count; k++) {
    const row = data[at++];
    const endRow = data[at++];
    const tokens = data[at++];
    const n = data[at++];
    into.push({ row, endRow, tokens, shingles: data.subarray(at, at + n) });
    at += n;
  }
  return at;
}

export interface FileFacts {
  /** Findings per built-in rule id; every built-in rule of the language ran (absent = none). */
  findings: Record<string, RawFinding[]>;
  /** Definitions in pre-order. */
  defs: DefinitionShape[];
}

export const MAX_MATCHES_PER_RULE_FILE = 200;
const MAX_SHAPE_TOKENS = 6000;

/** Node types that define something (functions, methods, classes, …) across the parsed grammars. */
export const DEFINITIONS: ReadonlySet<string> = new Set([
  'function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'class_declaration', 'abstract_class_declaration', 'interface_declaration',
  'function_definition', 'class_definition', 'function_item', 'impl_item', 'struct_item', 'method_declaration', 'constructor_declaration', 'class_body', 'type_declaration',
]);

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

/**
 * Python definitions are statements: outside every definition, the walk enters only the nodes that
 * hold statements (a module-level expression, import or table holds no definition; a definition's
 * shape uses only windows inside it, so skipping what lies outside every definition changes none).
 */
const PY_STATEMENT_HOLDERS: ReadonlySet<string> = new Set([
  'module', 'block', 'decorated_definition', 'if_statement', 'elif_clause', 'else_clause', 'for_statement', 'while_statement', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause', 'with_statement', 'match_statement', 'case_clause', 'ERROR',
]);
const holders = new WeakMap<object, Map<number, boolean>>();

/** Every definition's shape from one pre-order walk of the file. */
export function definitionShapes(root: Node, language?: Language): DefinitionShape[] {
  const ids = typeHashesOf(root);
  let holds: Map<number, boolean> | null = null;
  if (language === 'python') {
    const grammar = root.tree.language as object;
    holds = holders.get(grammar) ?? null;
    if (!holds) holders.set(grammar, (holds = new Map()));
  }
  let tokens = new Int32Array(4096);
  let count = 0;
  const open: { depth: number; start: number; row: number; endRow: number; index: number }[] = [];
  const spans: { start: number; end: number; row: number; endRow: number }[] = [];
  const close = (depth: number) => {
    while (open.length && open[open.length - 1].depth >= depth) {
      const o = open.pop()!;
      spans[o.index] = { start: o.start, end: count, row: o.row, endRow: o.endRow };
    }
  };
  const cursor = walkTree(root);
  try {
    let depth = 0;
    let descend = true;
    for (;;) {
      if (descend) {
        const id = cursor.typeId();
        let h = ids.get(id);
        if (h === undefined) {
          const type = cursor.typeName(id);
          // Low bit set: a definition type. The hash keeps its other 31 bits.
          ids.set(id, (h = (typeHashOf(type) & ~1) | (DEFINITIONS.has(type) ? 1 : 0)));
        }
        if (h & 1) {
          open.push({ depth, start: count, row: cursor.startRow(), endRow: cursor.endRow(), index: spans.length });
          spans.push({ start: 0, end: 0, row: 0, endRow: 0 });
        }
        if (h >>> 1 !== 0) {
          if (count === tokens.length) {
            const grown = new Int32Array(tokens.length * 2);
            grown.set(tokens);
            tokens = grown;
          }
          tokens[count++] = h & ~1;
        }
        let enter = true;
        if (holds && open.length === 0) {
          let e = holds.get(id);
          if (e === undefined) holds.set(id, (e = PY_STATEMENT_HOLDERS.has(cursor.typeName(id))));
          enter = e;
        }
        if (enter && cursor.gotoFirstChild()) {
          depth++;
          continue;
        }
      }
      if (cursor.gotoNextSibling()) {
        close(depth);
        descend = true;
        continue;
      }
      if (!cursor.gotoParent()) break;
      depth--;
      close(depth + 1);
      descend = false;
    }
  } finally {
    cursor.done(); // before any other use of the runtime
  }
  close(0);
  const shingles = shingleHashes(tokens, count);
  return spans.map((s) => ({ row: s.row, endRow: s.endRow, ...shapeOfRange(shingles, s.start, Math.min(s.end, s.start + MAX_SHAPE_TOKENS)) }));
}

/** Punctuation carries no shape. */
const SKIP = new Set(['(', ')', '{', '}', '[', ']', ',', ';', ':', '.', 'comment', '"', "'", '`', 'string_fragment']);

/** A node type's token hash, even and non-zero; 0 for punctuation (skipped). */
function typeHashOf(type: string): number {
  if (SKIP.has(type)) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < type.length; i++) h = Math.imul(h ^ type.charCodeAt(i), 0x01000193);
  return h & ~1 || 2;
}

const SHINGLE = 5;
/** Per grammar: node type id → hash of its type name (0 = punctuation), so shapes compare across grammars that share names (ts/tsx). */
const typeHashes = new WeakMap<object, Map<number, number>>();

function typeHashesOf(node: Node): Map<number, number> {
  const language = node.tree.language as object;
  let ids = typeHashes.get(language);
  if (!ids) typeHashes.set(language, (ids = new Map()));
  return ids;
}

/** The hash of every SHINGLE-token window of the file's token sequence, by start position. */
function shingleHashes(tokens: Int32Array, count: number): Int32Array {
  const out = new Int32Array(Math.max(0, count - SHINGLE + 1));
  for (let i = 0; i < out.length; i++) {
    let h = 0x811c9dc5;
    for (let k = i; k < i + SHINGLE; k++) h = Math.imul(h ^ tokens[k], 0x01000193);
    out[i] = h;
  }
  return out;
}

/** The shape of tokens[from, to): its windows' hashes, sorted and distinct. */
function shapeOfRange(shingles: Int32Array, from: number, to: number): Shape {
  const end = Math.max(from, to - SHINGLE + 1);
  const sorted = shingles.slice(from, end).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i];
  return { shingles: sorted.slice(0, n), tokens: to - from };
}
