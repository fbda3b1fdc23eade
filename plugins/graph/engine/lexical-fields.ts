/**
 * A node's index fields for the seek index's full build (lexical-build.ts) without the garbage:
 * `nodeFields` (lexical-text.ts, what incremental updates use) makes six Maps per node, splits
 * every file into line strings and every text into word strings; a 10K-node build allocated
 * ~270 MB that way, and the scavenges and mark-compact pauses it caused were the longest stretches
 * of a sliced build. Here words are scanned by character code and looked up in a table keyed by
 * their characters (a word's string is made once, when first seen), a word's terms are kept as
 * term numbers, a file is its text with an array of line starts, and a field is a list of term
 * numbers with counts in reused typed arrays. The terms, their order and counts are nodeFields'
 * exactly (test/plugins/graph/engine/lexical-fields.test.ts compares them on every node).
 */
import type { GraphNode } from './graph.ts';
import { isAccessorOrStub, namedWithClass, MAX_BODY_LINES, MAX_BODY_TERMS, MAX_BODY_TF, MAX_DOC_TOKENS, MAX_SIGNATURE_CHARS, MAX_TEXT_CHARS, SIGNATURE_END } from './lexical-text.ts';
import { isCodeNoise, phrasalCompound, termsOfWord, wholeTerm } from './lexical-words.ts';

/** Field numbers, in FIELDS' order (lexical-text.ts): name, qualified, signature, doc, body, path. */
const NAME = 0;
const QUALIFIED = 1;
const SIGNATURE = 2;
const DOC = 3;
const BODY = 4;
const PATH = 5;
const FIELD_COUNT = 6;
/** Distinct words remembered by one build before the table starts afresh (bounds its memory on huge graphs). */
const MAX_WORDS = 300_000;

function grown(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** One field of one node: distinct terms in the order first added, with their counts. */
export class FieldTerms {
  terms = new Int32Array(64);
  counts = new Int32Array(64);
  length = 0;
  /** Position + 1 of each term number in `terms` (0: absent); reset by `clear`. */
  private at = new Int32Array(1024);

  has(term: number): boolean {
    return term < this.at.length && this.at[term] !== 0;
  }

  /** Adds one to the term's count, capped at `cap`. */
  add(term: number, cap: number): void {
    const k = this.slot(term);
    const c = this.counts[k] + 1;
    this.counts[k] = c > cap ? cap : c;
  }

  /** Sets the term's count (a new term goes last). */
  set(term: number, count: number): void {
    this.counts[this.slot(term)] = count;
  }

  clear(): void {
    for (let k = 0; k < this.length; k++) this.at[this.terms[k]] = 0;
    this.length = 0;
  }

  private slot(term: number): number {
    if (term >= this.at.length) this.at = grown(this.at, term + 1);
    const p = this.at[term];
    if (p !== 0) return p - 1;
    const k = this.length++;
    if (k === this.terms.length) {
      this.terms = grown(this.terms, k + 1);
      this.counts = grown(this.counts, k + 1);
    }
    this.terms[k] = term;
    this.counts[k] = 0;
    this.at[term] = k + 1;
    return k;
  }
}

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** A file's text with the start of each line (the line reader of a build, one file at a time). */
class FileLines {
  path: string | null = null;
  text: string | null = null;
  starts = new Int32Array(1024);
  lines = 0;

  load(path: string, text: string | null): void {
    this.path = path;
    this.text = text;
    if (text === null) return;
    let n = 0;
    let at = 0;
    for (;;) {
      if (n === this.starts.length) this.starts = grown(this.starts, n + 1);
      this.starts[n++] = at;
      const nl = text.indexOf('\n', at);
      if (nl < 0) break;
      at = nl + 1;
    }
    this.lines = n;
  }

  /** End of line k (its newline excluded). */
  end(k: number): number {
    return k + 1 < this.lines ? this.starts[k + 1] - 1 : this.text!.length;
  }
}

/**
 * The full build's tokeniser: term numbers for the terms it has met (a term is a stem or a whole
 * identifier), the words met with their terms, and each node's fields.
 */
export class FieldScanner {
  /** Term strings by term number. */
  readonly termStrings: string[] = [];
  private readonly termNumbers = new Map<string, number>();
  /** 1 where the term is a keyword or builtin name (dropped from signatures and code bodies). */
  private noise = new Uint8Array(1024);
  // Words met: open addressing on a hash of their characters, each word's terms a range of `wordTerms`.
  private table = new Int32Array(1 << 12).fill(-1);
  private wordKeys: string[] = [];
  private wordHash = new Int32Array(1024);
  private wordFrom = new Int32Array(1024);
  private wordTo = new Int32Array(1024);
  private wordTerms = new Int32Array(4096);
  private wordTermCount = 0;
  /** Term numbers of the last scan. */
  private tokens = new Int32Array(1024);
  private readonly file = new FileLines();
  /** Whether the last `scanNode`'s body does no work: an accessor's or a stub's (isAccessorOrStub). */
  accessor = false;
  /** The fields of the last `scanNode`, in FIELDS' order. */
  readonly fields: FieldTerms[] = Array.from({ length: FIELD_COUNT }, () => new FieldTerms());
  private readonly bodyCounts = new FieldTerms();
  private topTerms = new Int32Array(MAX_BODY_TERMS);
  private topCounts = new Int32Array(MAX_BODY_TERMS);

  constructor(
    private readonly textOf: ((path: string) => string | null) | null,
    private readonly maxWords = MAX_WORDS,
  ) {}

  /** The term number of a term string (numbered when new). */
  termNumber(term: string): number {
    let t = this.termNumbers.get(term);
    if (t === undefined) {
      t = this.termStrings.length;
      this.termNumbers.set(term, t);
      this.termStrings.push(term);
      if (t >= this.noise.length) {
        const b = new Uint8Array(this.noise.length * 2);
        b.set(this.noise);
        this.noise = b;
      }
      this.noise[t] = isCodeNoise(term) ? 1 : 0;
    }
    return t;
  }

  /** Word number of text[start, end) (hash `h`), its terms worked out when first met. */
  private word(text: string, start: number, end: number, h: number): number {
    const len = end - start;
    let mask = this.table.length - 1;
    let slot = h & mask;
    for (;;) {
      const w = this.table[slot];
      if (w < 0) break;
      if (this.wordHash[w] === h) {
        const key = this.wordKeys[w];
        if (key.length === len) {
          let k = 0;
          while (k < len && key.charCodeAt(k) === text.charCodeAt(start + k)) k++;
          if (k === len) return w;
        }
      }
      slot = (slot + 1) & mask;
    }
    if (this.wordKeys.length >= this.maxWords) {
      // Bounded like the analyzer's memo: forget the words met (their terms keep their numbers).
      this.table.fill(-1);
      this.wordKeys.length = 0;
      this.wordTermCount = 0;
      slot = h & mask;
    }
    const w = this.wordKeys.length;
    // A copy, not a slice: a slice of a file's text would keep the whole text alive.
    const key = len < 13 ? text.slice(start, end) : (JSON.parse(JSON.stringify(text.slice(start, end))) as string);
    this.wordKeys.push(key);
    if (w === this.wordHash.length) {
      this.wordHash = grown(this.wordHash, w + 1);
      this.wordFrom = grown(this.wordFrom, w + 1);
      this.wordTo = grown(this.wordTo, w + 1);
    }
    this.wordHash[w] = h;
    const terms = termsOfWord(key);
    this.wordTerms = grown(this.wordTerms, this.wordTermCount + terms.length);
    this.wordFrom[w] = this.wordTermCount;
    for (const t of terms) this.wordTerms[this.wordTermCount++] = this.termNumber(t);
    this.wordTo[w] = this.wordTermCount;
    this.table[slot] = w;
    if (this.wordKeys.length * 2 > this.table.length) {
      // Rehash at half full.
      const table = new Int32Array(this.table.length * 2).fill(-1);
      mask = table.length - 1;
      for (let x = 0; x < this.wordKeys.length; x++) {
        let s = this.wordHash[x] & mask;
        while (table[s] >= 0) s = (s + 1) & mask;
        table[s] = x;
      }
      this.table = table;
    }
    return w;
  }

  /**
   * The terms of text[start, end) into `tokens` (what `analyze` gives for that text), keywords
   * dropped when `dropNoise`, at most `limit`; returns how many.
   */
  private scan(text: string, start: number, end: number, dropNoise: boolean, limit: number): number {
    let n = 0;
    let i = start;
    while (i < end) {
      let c = text.charCodeAt(i);
      if (!isWordChar(c)) {
        i++;
        continue;
      }
      const from = i;
      let h = 0;
      for (;;) {
        h = (Math.imul(h, 31) + c) | 0;
        if (++i >= end) break;
        c = text.charCodeAt(i);
        if (!isWordChar(c)) break;
      }
      const w = this.word(text, from, i, h);
      for (let k = this.wordFrom[w], to = this.wordTo[w]; k < to; k++) {
        const t = this.wordTerms[k];
        if (dropNoise && this.noise[t] === 1) continue;
        if (n >= limit) return n;
        if (n === this.tokens.length) this.tokens = grown(this.tokens, n + 1);
        this.tokens[n++] = t;
      }
    }
    return n;
  }

  /** Adds the terms of text[start, end) to a field. */
  private count(into: FieldTerms, text: string, start: number, end: number, dropNoise = false, limit = Infinity, cap = Infinity): void {
    const n = this.scan(text, start, end, dropNoise, limit);
    for (let k = 0; k < n; k++) into.add(this.tokens[k], cap);
  }

  /** Fills `fields` with the node's terms (nodeFields' terms, counts and order). */
  scanNode(n: GraphNode): void {
    const f = this.fields;
    for (const x of f) x.clear();
    this.accessor = false;
    const path = n.path;
    const slash = path.lastIndexOf('/');
    const isFile = n.kind === 'file' || n.kind === 'module';
    // Name (a file's without its extension) and the whole identifier as one term.
    const label = n.label;
    let nameEnd = label.length;
    if (n.kind === 'file') {
      const dot = label.lastIndexOf('.');
      if (dot >= 0 && dot < label.length - 1) nameEnd = dot;
    }
    this.count(f[NAME], label, 0, nameEnd);
    const nameTerms = f[NAME].length;
    const whole = wholeTerm(nameEnd === label.length ? label : label.slice(0, nameEnd));
    if (whole) {
      const t = this.termNumber(whole);
      if (!f[NAME].has(t)) f[NAME].set(t, 1);
    }
    if (isFile) {
      if (slash > 0) this.count(f[PATH], path, 0, slash);
    } else {
      const q = n.qualifiedName ?? '';
      const dot = q.lastIndexOf('.');
      if (dot > 0) this.count(f[QUALIFIED], q, 0, dot);
      if (dot > 0 && namedWithClass(n, nameTerms)) {
        const k = this.scan(q, q.lastIndexOf('.', dot - 1) + 1, dot, false, Infinity);
        for (let i = 0; i < k; i++) if (!f[NAME].has(this.tokens[i])) f[NAME].set(this.tokens[i], 1);
      }
      // The path without its extension (a last `.` with no `/` after it).
      const ext = path.lastIndexOf('.');
      const pathEnd = ext >= 0 && ext < path.length - 1 && path.indexOf('/', ext) < 0 ? ext : path.length;
      this.count(f[PATH], path, 0, pathEnd);
    }
    if (n.doc) {
      const count = this.scan(n.doc, 0, n.doc.length, false, MAX_DOC_TOKENS);
      for (let k = 0; k < count; k++) f[DOC].add(this.tokens[k], Infinity);
      // Phrasal verbs as the one word a query joins them into (nodeFields).
      for (let k = 0; k + 1 < count; k++) {
        const compound = phrasalCompound(this.termStrings[this.tokens[k]], this.termStrings[this.tokens[k + 1]]);
        if (compound) f[DOC].add(this.termNumber(compound), Infinity);
      }
    }
    if (n.text) this.count(f[BODY], n.text, 0, Math.min(n.text.length, MAX_TEXT_CHARS), false, Infinity, MAX_BODY_TF);
    if (isFile || !this.textOf) return;
    const file = this.file;
    if (file.path !== path) file.load(path, this.textOf(path));
    if (file.text !== null) this.symbolFields(n, file);
  }

  /** Signature and body terms from the symbol's lines (symbolSource's split, lexical-text.ts). */
  private symbolFields(n: GraphNode, file: FileLines): void {
    const text = file.text!;
    const f = this.fields;
    const first = Math.max(0, n.startLine - 1);
    const last = Math.min(file.lines, n.endLine, first + MAX_BODY_LINES);
    if (last <= first) return;
    let signature: string | null = null;
    let bodyFrom = first + 1;
    let bodyHead = '';
    let head = '';
    for (let k = first; k < last && head.length < MAX_SIGNATURE_CHARS; k++) {
      const line = text.slice(file.starts[k], file.end(k));
      const open = line.search(SIGNATURE_END);
      if (open >= 0) {
        signature = head + line.slice(0, open);
        bodyFrom = k + 1;
        bodyHead = line.slice(open);
        break;
      }
      head += `${line}\n`;
    }
    signature ??= text.slice(file.starts[first], file.end(first));
    // Signature terms the name does not already hold.
    const sn = this.scan(signature, 0, signature.length, true, Infinity);
    for (let k = 0; k < sn; k++) {
      const t = this.tokens[k];
      if (!f[NAME].has(t)) f[SIGNATURE].add(t, Infinity);
    }
    if (n.kind !== 'function' && n.kind !== 'method' && n.kind !== 'section') return;
    const noise = n.kind !== 'section';
    const counts = this.bodyCounts;
    counts.clear();
    this.count(counts, bodyHead, 0, bodyHead.length, noise);
    if (bodyFrom < last) this.count(counts, text, file.starts[bodyFrom], file.end(last - 1), noise);
    this.accessor = isAccessorOrStub(n, bodyFrom, () => (bodyFrom < last ? `${bodyHead}\n${text.slice(file.starts[bodyFrom], file.end(last - 1))}` : bodyHead));
    if (counts.length <= MAX_BODY_TERMS) {
      for (let k = 0; k < counts.length; k++) f[BODY].set(counts.terms[k], Math.min(MAX_BODY_TF, counts.counts[k]));
      return;
    }
    // The most frequent terms, ties in the order first met (a stable sort by count, descending).
    let top = 0;
    for (let k = 0; k < counts.length; k++) {
      const c = counts.counts[k];
      if (top === MAX_BODY_TERMS && c <= this.topCounts[top - 1]) continue;
      let at = top < MAX_BODY_TERMS ? top++ : top - 1;
      while (at > 0 && this.topCounts[at - 1] < c) {
        this.topCounts[at] = this.topCounts[at - 1];
        this.topTerms[at] = this.topTerms[at - 1];
        at--;
      }
      this.topCounts[at] = c;
      this.topTerms[at] = counts.terms[k];
    }
    for (let k = 0; k < top; k++) f[BODY].set(this.topTerms[k], Math.min(MAX_BODY_TF, this.topCounts[k]));
  }
}
