/**
 * Where a tree-sitter parse went wrong, as byte ranges, so extraction can refuse facts taken from a
 * mis-parse: error recovery turns `if (x) {` in a class body into a method named `if`, or wraps a whole
 * region in an ERROR node whose children are guesses. Built only for trees that report errors.
 */
import type { Language as Grammar, Node, Parser, Query, Tree } from 'web-tree-sitter';
import { treeSitterRuntime } from './tree-sitter.ts';

/** Disjoint, sorted [start, end) byte ranges. */
type Spans = { start: number[]; end: number[] };

/** The ERROR nodes and MISSING tokens of one tree. */
export class ErrorRegions {
  /** Count of ERROR and MISSING nodes (nested ERROR nodes count each). */
  readonly count: number;
  /**
   * 1-based line of the first innermost one: recovery often wraps a whole file in an ERROR node that
   * starts at line 1, while the nested one points at the real trouble.
   */
  readonly firstLine: number;
  /** Inside ERROR nodes. */
  private readonly errors: Spans;
  /** ERROR nodes and MISSING tokens (a missing token covers the byte it was expected at). */
  private readonly marks: Spans;
  private readonly sound: [number, number][] = [];
  private soundSpans: Spans = { start: [], end: [] };
  private soundSorted = true;

  constructor(nodes: readonly Node[]) {
    this.count = nodes.length;
    const errors: [number, number][] = [];
    const marks: [number, number][] = [];
    for (const n of nodes) {
      if (n.isMissing) marks.push([n.startIndex, n.startIndex + 1]);
      else {
        errors.push([n.startIndex, Math.max(n.endIndex, n.startIndex + 1)]);
        marks.push([n.startIndex, Math.max(n.endIndex, n.startIndex + 1)]);
      }
    }
    this.firstLine = firstInnermostRow(nodes) + 1;
    this.errors = merge(errors);
    this.marks = merge(marks);
  }

  /** True when byte `pos` lies inside an ERROR node. */
  inside(pos: number): boolean {
    const i = lastStartAtOrBefore(this.errors, pos);
    return i >= 0 && pos < this.errors.end[i];
  }

  /**
   * Marks [start, end) as a whole, error-free declaration that recovery kept inside an ERROR node
   * (tree-sitter often wraps a whole file in one): it and what it holds are trusted.
   */
  markSound(start: number, end: number): void {
    this.sound.push([start, end]);
    this.soundSorted = false;
  }

  /** True unless `pos` lies inside an ERROR node and outside every declaration marked sound. */
  trusted(pos: number): boolean {
    if (!this.inside(pos)) return true;
    if (!this.soundSorted) {
      this.soundSpans = merge(this.sound);
      this.soundSorted = true;
    }
    const i = lastStartAtOrBefore(this.soundSpans, pos);
    return i >= 0 && pos < this.soundSpans.end[i];
  }

  /** True when an ERROR node or a MISSING token overlaps [start, end). */
  overlaps(start: number, end: number): boolean {
    if (end <= start) return false;
    const i = lastStartAtOrBefore(this.marks, end - 1);
    return i >= 0 && this.marks.end[i] > start;
  }
}

/** Compiles the query that finds a grammar's ERROR and MISSING nodes. */
export function errorQuery(grammar: Grammar): Query {
  return new (treeSitterRuntime().Query)(grammar, '(ERROR) @error (MISSING) @missing');
}

/** The error regions of a tree's root, or null for a clean parse (which costs nothing more). */
export function errorRegions(query: Query, root: Node): ErrorRegions | null {
  if (!root.hasError) return null;
  const nodes = query.captures(root).map((c) => c.node);
  return nodes.length === 0 ? null : new ErrorRegions(nodes);
}

/**
 * Parses `source`; when the tree has errors and the language offers a repair, parses the repaired text
 * too and keeps whichever has fewer errors (the rewrite keeps every offset, so facts still point at the
 * file). Returns the kept tree (the caller deletes it), its source and its error regions.
 */
export function parseWithRepair(
  parser: Parser,
  errors: Query,
  source: string,
  repair: ((source: string) => string) | undefined,
  path: string,
): { tree: Tree; source: string; regions: ErrorRegions | null } {
  const tree = parser.parse(source);
  if (tree === null) throw new Error(`tree-sitter gave no tree for ${path}`);
  const regions = errorRegions(errors, tree.rootNode);
  if (regions === null || repair === undefined) return { tree, source, regions };
  const repaired = repair(source);
  const retry = repaired === source ? null : parser.parse(repaired);
  if (retry === null) return { tree, source, regions };
  const retryRegions = errorRegions(errors, retry.rootNode);
  if (retryRegions !== null && retryRegions.count >= regions.count) {
    retry.delete();
    return { tree, source, regions };
  }
  tree.delete();
  return { tree: retry, source: repaired, regions: retryRegions };
}

/**
 * A declaration is a guess when it is named by a reserved word of its language (`reserved`), or when an
 * error sits in its header (`if (a > b) {` read as a method named `if` in a broken class body). Inside an
 * ERROR node only its own header counts; a whole, error-free one is marked sound (what it holds is trusted).
 */
export function isMisparsedDef(node: Node, name: Node, text: string, regions: ErrorRegions, reserved?: ReadonlySet<string>): boolean {
  if (reserved?.has(text) === true) return true;
  if (regions.inside(node.startIndex) || regions.inside(name.startIndex)) {
    if (node.hasError) return headerHasError(node, name);
    regions.markSound(node.startIndex, node.endIndex);
    return false;
  }
  return regions.overlaps(node.startIndex, headerEnd(node, name));
}

/**
 * The node a definition's name is trusted from: from its start through its parameter list (or its name
 * when it has none). Decorators, modifiers, the name and the parameters all sit there; the body does not,
 * so an error inside a body leaves the declaration standing.
 */
export function headerEnd(def: Node, name: Node): number {
  const params = def.childForFieldName('parameters');
  return Math.max(name.endIndex, params?.endIndex ?? 0);
}

/**
 * True when the header of `def` holds an error: what precedes its name (decorators, modifiers), the name,
 * or a signature field (parameters, type parameters, superclasses, return type, receiver). The body is
 * not judged: recovery may replace it by an ERROR node and leave a sound header.
 */
export function headerHasError(def: Node, name: Node): boolean {
  const broken = (c: Node | null): boolean => c !== null && (c.type === 'ERROR' || c.isMissing || c.hasError);
  if (broken(name) || SIGNATURE_FIELDS.some((f) => broken(def.childForFieldName(f)))) return true;
  for (const c of def.children) {
    if (c === null || c.startIndex >= name.startIndex) break;
    if (broken(c)) return true;
  }
  return false;
}

const SIGNATURE_FIELDS = ['parameters', 'type_parameters', 'superclasses', 'return_type', 'receiver', 'result'];

/**
 * A call whose own argument list holds an ERROR or MISSING node is a guess (`match(path: string) {` is a
 * method header, not a call), and so is one whose statement needed a MISSING token. `name` is the callee
 * name node; the call is the nearest ancestor with arguments.
 */
export function isBrokenCall(name: Node, regions: ErrorRegions): boolean {
  let call: Node | null = name.parent;
  for (let up = 0; call !== null && up < 3; up++, call = call.parent) {
    const args = call.childForFieldName('arguments');
    if (args === null) continue;
    // A statement that needed a MISSING `;` after the call (`stop() {}`) is a method header misread.
    const statement = call.parent?.type === 'expression_statement' ? call.parent : null;
    // +1: a MISSING token at the very end has zero width there.
    if (!regions.overlaps(call.startIndex, (statement?.endIndex ?? call.endIndex) + 1)) return false;
    return [...call.children, ...args.children, ...(statement?.children ?? [])].some((c) => c !== null && (c.type === 'ERROR' || c.isMissing));
  }
  return false;
}

/** Row of the earliest node that contains no other: sorted by start (outer first), a node is innermost when the next starts at or after its end. */
function firstInnermostRow(nodes: readonly Node[]): number {
  const sorted = [...nodes].sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  for (let i = 0; i < sorted.length; i++) {
    const next = sorted[i + 1];
    if (next === undefined || next.startIndex >= sorted[i].endIndex || sorted[i].isMissing) return sorted[i].startPosition.row;
  }
  return 0;
}

function merge(input: [number, number][]): Spans {
  const ranges = [...input];
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Spans = { start: [], end: [] };
  for (const [s, e] of ranges) {
    const last = out.end.length - 1;
    if (last >= 0 && s <= out.end[last]) out.end[last] = Math.max(out.end[last], e);
    else {
      out.start.push(s);
      out.end.push(e);
    }
  }
  return out;
}

/** Index of the last span starting at or before `pos`, or -1. */
function lastStartAtOrBefore(spans: Spans, pos: number): number {
  let lo = 0;
  let hi = spans.start.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (spans.start[mid] <= pos) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
