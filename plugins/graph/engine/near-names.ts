/**
 * Did-you-mean for a node argument with a slip in it (`HeaderParsr`, `Cart.totl`, `src/cart.py#Cart.totl`,
 * `pkg/mesage.py`): the nodes whose name is a small edit away, best first. An agent calls again
 * with the first suggestion, so the order matters more than the list:
 * 1. a symbol of the file the argument named (`path#Name`), or a file in the directory it named;
 * 2. fewer edits, letter case aside (a swap of two neighbouring letters counts as one); the whole
 *    qualified name matched counts fewer than its last segment only (`Cart.totl` → `Cart.total`
 *    before `Order.total`);
 * 3. fewer edits with case counted (`Spec.buildr` → the method `builder` before the class `Builder`);
 * 4. declarations an agent names most (classes, functions, files) before members and sections;
 *    code outside tests before tests; then by id, so the answer is stable.
 * One pass over the nodes, comparing lengths before letters, with no string made per node: a few ms
 * on a 100,000-node graph.
 */
import type { CodeGraph, GraphNode, NodeKind } from './graph.ts';
import { isTestNode } from './lexical-text.ts';
import { runSteps, runStepsPaced } from './steps.ts';

/** Nodes compared between two steps of the scan (a pace may yield there). */
const NODES_PER_STEP = 4_096;

/** Edits allowed for a name of `length` characters. */
function allowedEdits(length: number): number {
  return length <= 4 ? 1 : length <= 12 ? 2 : 3;
}

const KIND_ORDER: Partial<Record<NodeKind, number>> = { class: 0, interface: 0, type: 0, function: 0, file: 0, method: 1 };

/** What the argument names, lower-cased: a path and/or a (possibly qualified) name. */
interface Wanted {
  /** `path` of `path#Name`, or the whole argument when it is a path (has a `/`). */
  path: string | null;
  /** The name after `#`, or the whole argument when it has neither `/` nor `#`. */
  name: string | null;
  /** The name's last dotted segment, when the name has dots (`cart.totl` → `totl`). */
  last: string | null;
  /** The base name of `path` when the argument is a path. */
  base: string | null;
}

/** What `text` names; lower-cased unless `keepCase`. */
function wantedOf(text: string, keepCase = false): Wanted | null {
  let t = text
    .trim()
    .replace(/^(file|module|function|method|class|interface|type|section):/, '')
    .replace(/:\d+(:\d+)?$/, '')
    .replace(/^\.\//, '');
  if (!keepCase) t = t.toLowerCase();
  if (!t) return null;
  // `path#Name`; a `#` right after a dot starts a private name (`Driver.#connect`), not a name after a path.
  const hash = t.indexOf('#');
  if (hash >= 0 && t[hash - 1] !== '.') {
    const name = t.slice(hash + 1);
    const dot = name.lastIndexOf('.');
    return { path: t.slice(0, hash) || null, name: name || null, last: dot > 0 ? name.slice(dot + 1) : null, base: null };
  }
  if (t.includes('/')) return { path: t, name: null, last: null, base: t.slice(t.lastIndexOf('/') + 1) };
  const dot = t.lastIndexOf('.');
  return { path: null, name: t, last: dot > 0 ? t.slice(dot + 1) : null, base: null };
}

// Three rows of the optimal-string-alignment matrix, reused (the scan is synchronous).
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

const fold = (c: number): number => (c >= 65 && c <= 90 ? c + 32 : c);

/**
 * Edit distance between `a` and `b`, where a swap of two neighbouring characters is one edit;
 * `cap + 1` as soon as it must exceed `cap`. With `folded`, `b` is lower case and `a` is compared
 * case-insensitively (ASCII letters).
 */
export function boundedEdits(a: string, b: string, cap: number, folded = true): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > cap) return cap + 1;
  if (m + 2 > rows[0].length) rows = [new Int32Array(m + 34), new Int32Array(m + 34), new Int32Array(m + 34)];
  let [before, prev, cur] = rows;
  const far = cap + 1; // any cell outside the band: more than cap
  for (let j = 0; j <= m; j++) prev[j] = j <= cap ? j : far;
  for (let i = 1; i <= n; i++) {
    const ca = folded ? fold(a.charCodeAt(i - 1)) : a.charCodeAt(i - 1);
    const pa = i > 1 ? (folded ? fold(a.charCodeAt(i - 2)) : a.charCodeAt(i - 2)) : -1;
    // Only the band |i − j| ≤ cap can stay within cap; the cells beside it read as more than cap.
    const from = Math.max(1, i - cap);
    const to = Math.min(m, i + cap);
    cur[from - 1] = from === 1 ? (i <= cap ? i : far) : far;
    let rowMin = cur[from - 1];
    for (let j = from; j <= to; j++) {
      const cb = b.charCodeAt(j - 1);
      let d = prev[j - 1] + (ca === cb ? 0 : 1);
      if (prev[j] + 1 < d) d = prev[j] + 1;
      if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
      if (j > 1 && ca === b.charCodeAt(j - 2) && pa === cb && before[j - 2] + 1 < d) d = before[j - 2] + 1;
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (to < m) cur[to + 1] = far;
    if (rowMin > cap) return cap + 1;
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[m] > cap ? cap + 1 : prev[m];
}

/** Edits from `have` to `want` if within the allowance for `want`, else Infinity. */
function near(have: string | undefined, want: string | null, folded: boolean): number {
  if (!have || !want || want.length < 3) return Infinity;
  const cap = allowedEdits(want.length);
  const d = boundedEdits(have, want, cap, folded);
  return d <= cap ? d : Infinity;
}

/** Whether `path` (as stored) is `want` or ends with `/want`, case-insensitively. */
function pathIs(path: string, want: string): boolean {
  if (path.length < want.length) return false;
  const at = path.length - want.length;
  if (at > 0 && path.charCodeAt(at - 1) !== 47) return false;
  for (let i = 0; i < want.length; i++) if (fold(path.charCodeAt(at + i)) !== want.charCodeAt(i)) return false;
  return true;
}

interface Candidate {
  node: GraphNode;
  /** 0 when in the file (or directory) the argument named. */
  place: number;
  edits: number;
  /** The same edits with letter case counted (`builder` is nearer `buildr` than `Builder` is). */
  caseEdits: number;
  kind: number;
  test: number;
}

/** Edits from node `n`'s name (or path) to what `want` names, Infinity past the allowance; `folded`: `want` is lower-cased and case is ignored. */
function editsTo(n: GraphNode, want: Wanted, folded: boolean): number {
  if (n.kind === 'file') {
    // A path: the whole path a few edits away, or the base name in another directory (one more).
    if (want.base !== null) return Math.min(near(n.path, want.path, folded), near(n.label, want.base, folded) + 1);
    return want.path === null ? near(n.label, want.name, folded) : Infinity;
  }
  if (want.name === null) return Infinity;
  if (want.last !== null) return Math.min(near(n.qualifiedName, want.name, folded), near(n.label, want.last, folded) + 1);
  const byLabel = near(n.label, want.name, folded);
  return n.qualifiedName === undefined || n.qualifiedName === n.label ? byLabel : Math.min(byLabel, near(n.qualifiedName, want.name, folded));
}

/** The scan behind `nearNames`, a step per NODES_PER_STEP nodes. */
function* nearNamesSteps(g: CodeGraph, text: string, limit: number, kinds?: readonly NodeKind[]): Generator<void, string[]> {
  const want = wantedOf(text);
  const asTyped = wantedOf(text, true);
  if (!want || !asTyped || limit <= 0) return [];
  const allowed = kinds?.length ? new Set(kinds) : null;
  const dir = want.base !== null && want.path!.length > want.base.length ? want.path!.slice(0, want.path!.length - want.base.length - 1) : null;
  const found: Candidate[] = [];
  for (let i = 0; i < g.nodeCapacity; i++) {
    if (i % NODES_PER_STEP === NODES_PER_STEP - 1) yield;
    const n = g.node(i);
    if (!n || n.kind === 'module' || (allowed && !allowed.has(n.kind))) continue;
    const edits = editsTo(n, want, true);
    if (edits === Infinity) continue;
    let place = 1;
    if (n.kind === 'file') {
      if (dir !== null && pathIs(n.path.slice(0, Math.max(0, n.path.length - n.label.length - 1)), dir)) place = 0;
    } else if (want.path !== null && pathIs(n.path, want.path)) place = 0;
    found.push({ node: n, place, edits, caseEdits: Math.min(editsTo(n, asTyped, false), edits + 3), kind: KIND_ORDER[n.kind] ?? 2, test: isTestNode(n) ? 1 : 0 });
  }
  found.sort((a, b) => a.place - b.place || a.edits - b.edits || a.caseEdits - b.caseEdits || a.kind - b.kind || a.test - b.test || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0));
  // Past the best, one edit more at most: `ratio` → `atoi` three edits away says nothing useful.
  const worst = found.length ? found[0].edits + 1 : 0; // sorted: the first is the best of its place
  return found.filter((c) => c.edits <= worst).slice(0, limit).map((c) => c.node.id);
}

/** The ids of nodes whose name is a few edits from what `text` names, best first (see the file's comment), at most `limit`; in one piece. */
export function nearNames(g: CodeGraph, text: string, limit: number, kinds?: readonly NodeKind[]): string[] {
  return runSteps(nearNamesSteps(g, text, limit, kinds));
}

/** `nearNames` with the scan in steps, `pace()` between them (a request handler's pace). */
export async function nearNamesPaced(g: CodeGraph, text: string, limit: number, pace: () => Promise<void>, kinds?: readonly NodeKind[]): Promise<string[]> {
  return (await runStepsPaced(nearNamesSteps(g, text, limit, kinds), pace)) ?? [];
}

function merged(text: string, typos: readonly string[], lexical: readonly string[], limit: number): string[] {
  const word = isWord(text);
  return [...new Set(word ? [...typos, ...lexical] : [...lexical, ...typos])].slice(0, limit);
}

const isWord = (text: string): boolean => !/\s/.test(text.trim());

/**
 * What to suggest for an argument that matched no node, given the seek index's matches for it
 * (`lexical`): for a name or a path (no spaces) the names a few edits away come first — a slip is
 * likelier than other words — then the lexical matches; for free text the lexical matches, and the
 * near names only when there are none.
 */
export function didYouMean(g: CodeGraph, text: string, lexical: readonly string[], limit: number, kinds?: readonly NodeKind[]): string[] {
  const typos = isWord(text) || lexical.length === 0 ? nearNames(g, text, limit, kinds) : [];
  return merged(text, typos, lexical, limit);
}

/** `didYouMean` with the scan over the nodes in steps, `pace()` between them (a request handler's pace). */
export async function didYouMeanPaced(g: CodeGraph, text: string, lexical: readonly string[], limit: number, pace: () => Promise<void>, kinds?: readonly NodeKind[]): Promise<string[]> {
  const typos = isWord(text) || lexical.length === 0 ? ((await runStepsPaced(nearNamesSteps(g, text, limit, kinds), pace)) ?? []) : [];
  return merged(text, typos, lexical, limit);
}
