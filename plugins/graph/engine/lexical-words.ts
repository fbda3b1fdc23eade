/**
 * The words of text analysis, shared by `seek` and semantic `search`: identifier splitting, stop
 * words, stemming, programmers' synonyms and phrasal verbs. Index and query go through the same
 * `analyze`, so "retries" meets `retryRequest` and "is" meets nothing. The fields a node is indexed
 * under are lexical-text.ts's.
 */
import { stemmer } from 'stemmer';

/**
 * Splits identifiers, paths and prose into lowercase tokens: `parseHTTPRequest_v2` → parse, http,
 * request, v2. With `halves`, a word with a number on its end is also its two halves (`ISO8601Utils`
 * → iso8601, iso, 8601, utils), so prose that spells them apart ("ISO 8601", "UTF-8", "SHA-256")
 * meets the name (the seek index and its queries).
 */
export function tokenize(text: string, halves = false): string[] {
  const out: string[] = [];
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (!word) continue;
    // `IPv6` before the acronym rule, which would leave `I` | `Pv6`.
    const parts = word.match(/[A-Z]{2,}[a-z]\d+|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+/g);
    if (!parts) continue;
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      if (p.length < 2 && !/\d/.test(p)) {
        // A lone capital before a capitalised word is a prefix of it, not a word: `GZip` → gzip (and zip), `XPath` → xpath.
        const next = parts[k + 1];
        if (/[A-Z]/.test(p) && next !== undefined && /^[A-Z][a-z]/.test(next)) out.push((p + next).toLowerCase());
        continue;
      }
      const lower = p.toLowerCase();
      out.push(lower);
      const split = halves ? /^([a-z]{2,})(\d+)$/.exec(lower) : null;
      if (split) out.push(split[1], split[2]);
    }
  }
  return out;
}

/**
 * English words that carry no meaning in a "where/how" question, dropped from queries and from every
 * indexed field except the whole identifier (so `is_draft` is found by "draft", never by "is").
 * Not "code": it names things in code (`parse_code`, `status_code`, `CodeBlock`), and dropping it from
 * names cost more answers ("read the status code" never met `parse_code`) than the word costs in
 * "the code that …" questions (bench:quality, stop 50).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being by can could did do does doing done for from had has have how if in into is it its ' +
    'of on or our should so such than that the their them then there these they this those to was we were what when where ' +
    'which while who whom why will with would you your not no me my i about via also just any some all each ' +
    'over through upon onto whose ' +
    'logic implemented implementation happen happens work works'
  ).split(' '),
);

/** Keywords and builtin type names of the supported languages: noise in signatures and bodies. */
const CODE_NOISE: ReadonlySet<string> = new Set(
  (
    'def return returns const let var function if else elif for while import export from class new await async try ' +
    'finally self this none null undefined true false typeof instanceof void any string number ' +
    'boolean bool int str dict list tuple pass lambda yield case switch break continue default static public private ' +
    'protected readonly extends implements interface type enum func defer chan fn pub mut impl struct use mod package ' +
    'object unknown never nil err len range go println print todo args kwargs cls'
  ).split(' '),
);

/** Irregular past forms common in questions about code ("where is it thrown"), mapped to the verb. */
const IRREGULAR: ReadonlyMap<string, string> = new Map(
  Object.entries({
    found: 'find', thrown: 'throw', threw: 'throw', built: 'build', written: 'write', wrote: 'write', sent: 'send',
    chosen: 'choose', chose: 'choose', ran: 'run', got: 'get', gotten: 'get', made: 'make', held: 'hold', kept: 'keep',
    taken: 'take', took: 'take', given: 'give', gave: 'give', begun: 'begin', began: 'begin',
    hidden: 'hide', shown: 'show', drawn: 'draw', frozen: 'freeze',
    lost: 'lose', sought: 'seek', caught: 'catch', brought: 'bring',
  }),
);

const stemMemo = new Map<string, string>();

/**
 * A string that shares no memory with the text it was cut from. V8 keeps a slice of 13+ characters
 * as a view of its parent, so a memoised token cut from a file would keep the whole file's text
 * alive after the content cache dropped it (measured: 7.8 MB of stdlib sources held by the memos).
 */
export function detached(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/** Porter stem of a lowercase token, memoised (the vocabulary of a codebase is small and repeats). */
export function stem(token: string): string {
  let s = stemMemo.get(token);
  if (s === undefined) {
    if (stemMemo.size > 200_000) stemMemo.clear();
    const base = IRREGULAR.get(token) ?? token;
    s = base.length <= 3 || /\d/.test(base) ? base : stemmer(base);
    // Porter undoubles after cutting -ed/-ing (`added` → `ad`) while `add` stays `add`: keep 3+ letters.
    if (s.length < 3) s = base.replace(/(ing|ed|es|s)$/, '');
    // Porter keeps -able/-ible on short stems (`draftable` → `draftabl`); code names adjectives after
    // their verbs (`isDraftable`, `callable`), so fold them onto the verb.
    if (/[^aeiou][ai]bl$/.test(s) && s.length >= 7) s = s.slice(0, -3);
    s = detached(s);
    stemMemo.set(detached(token), s);
  }
  return s;
}

const wordMemo = new Map<string, string[]>();
let noiseStems: Set<string> | null = null;

/** Content terms of one word (`parseHeaders` → pars, header), memoised: code repeats its words. */
function wordTerms(word: string): string[] {
  let terms = wordMemo.get(word);
  if (!terms) {
    if (wordMemo.size > 200_000) wordMemo.clear();
    terms = [];
    for (const t of tokenize(word, true)) if (!STOP_WORDS.has(t)) terms.push(stem(t));
    wordMemo.set(detached(word), terms);
  }
  return terms;
}

/**
 * Words programmers use for one another in questions and in code ("wait" for a delay, "compute" for
 * calculate). A query word also matches its group's other stems, at a reduced weight (seek-scoring).
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['wait', 'delay', 'sleep', 'backoff'],
  ['compute', 'calculate', 'calc'],
  ['find', 'search', 'lookup', 'locate', 'get'],
  ['check', 'validate', 'verify', 'ensure'],
  ['create', 'make', 'build', 'construct'],
  ['remove', 'delete', 'drop'],
  ['start', 'begin', 'launch'],
  ['stop', 'halt', 'terminate', 'abort', 'cancel', 'kill'],
  ['error', 'exception', 'failure'],
  ['parse', 'decode', 'deserialize'],
  ['encode', 'serialize', 'marshal'],
  ['send', 'emit', 'dispatch'],
  ['fetch', 'retrieve', 'download'],
  ['configuration', 'config', 'settings', 'options'],
  ['guess', 'detect', 'infer', 'sniff'],
  ['run', 'execute', 'invoke'],
  ['convert', 'transform'],
  ['merge', 'combine'],
  ['copy', 'clone', 'duplicate'],
  ['save', 'persist', 'store'],
  ['subscribe', 'observe', 'listen'],
  ['directory', 'folder', 'dir'],
  ['authentication', 'auth', 'login', 'credentials'],
  ['throw', 'raise'],
  ['catch', 'except', 'rescue'],
  // Abbreviations code uses for the words a question spells out.
  ['minimum', 'min'],
  ['maximum', 'max'],
  ['number', 'num'],
  ['message', 'msg'],
  ['argument', 'arg'],
  ['parameter', 'param'],
  ['attribute', 'attr'],
  ['index', 'idx'],
  ['request', 'req'],
  ['response', 'resp'],
  ['context', 'ctx'],
  ['environment', 'env'],
  ['buffer', 'buf'],
  ['previous', 'prev'],
  ['current', 'cur'],
  ['connection', 'conn'],
  ['database', 'db'],
  ['document', 'doc'],
  ['package', 'pkg'],
  ['repository', 'repo'],
  ['reference', 'ref'],
  ['address', 'addr'],
  ['temporary', 'tmp', 'temp'],
  ['destination', 'dst', 'dest'],
  ['source', 'src'],
  ['operator', 'op'],
  ['operation', 'op'],
  ['pointer', 'ptr'],
  ['value', 'val'],
  ['position', 'pos'],
  ['element', 'elem'],
  ['initialize', 'init'],
  ['expression', 'expr'],
  ['statement', 'stmt'],
  ['character', 'char'],
  ['iterator', 'iter'],
  ['sequence', 'seq'],
  ['information', 'info'],
  ['specification', 'spec'],
  ['identifier', 'ident'],
  ['declaration', 'decl'],
  ['allocate', 'alloc'],
  ['object', 'obj'],
  ['command', 'cmd'],
  ['callback', 'cb'],
  ['utility', 'util'],
  ['library', 'lib'],
  ['manager', 'mgr'],
  ['length', 'len'],
];

/**
 * Phrasal verbs code spells as one word ("look up" → lookup, "clean up" → cleanup, "shut down" →
 * shutdown), keyed by the stems of the verb and its particle. "up to the latest" stays two words.
 */
const PHRASAL: ReadonlyMap<string, string> = new Map(
  [
    ['look', 'up', 'lookup'],
    ['set', 'up', 'setup'],
    ['clean', 'up', 'cleanup'],
    ['tear', 'down', 'teardown'],
    ['shut', 'down', 'shutdown'],
    ['start', 'up', 'startup'],
    ['log', 'out', 'logout'],
    ['sign', 'up', 'signup'],
    ['sign', 'out', 'signout'],
    ['back', 'up', 'backup'],
    ['roll', 'back', 'rollback'],
  ].map(([verb, particle, compound]) => [`${stem(verb)} ${stem(particle)}`, compound]),
);

/** The one word code uses for a phrasal verb given as the stems of its two words (`look`, `up` → lookup), if any. */
export function phrasalCompound(verbStem: string, particleStem: string): string | undefined {
  return PHRASAL.get(`${verbStem} ${particleStem}`);
}

/** A query's words with each phrasal verb ("looks up", "cleaned up") joined into the word code uses for it. */
export function phrasalCompounds(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const compound = i + 1 < words.length ? phrasalCompound(stem(words[i]), stem(words[i + 1])) : undefined;
    if (compound) {
      out.push(compound);
      i++;
    } else out.push(words[i]);
  }
  return out;
}

let synonymIndex: Map<string, string[]> | null = null;

/** Stems that mean the same as this stem in code (not including itself). */
export function synonymsOf(term: string): readonly string[] {
  if (!synonymIndex) {
    synonymIndex = new Map();
    for (const group of SYNONYM_GROUPS) {
      const stems = [...new Set(group.map((w) => stem(w)))];
      for (const s of stems) synonymIndex.set(s, [...new Set([...(synonymIndex.get(s) ?? []), ...stems.filter((x) => x !== s)])]);
    }
  }
  return synonymIndex.get(term) ?? [];
}

/** Content terms of one word of letters and digits, not memoised (the full build keeps its own table: lexical-fields.ts). */
export function termsOfWord(word: string): string[] {
  const out: string[] = [];
  for (const t of tokenize(word, true)) if (!STOP_WORDS.has(t)) out.push(stem(t));
  return out;
}

/** Whether a term is a keyword or builtin type name (dropped from signatures and code bodies). */
export function isCodeNoise(term: string): boolean {
  noiseStems ??= new Set([...CODE_NOISE].map(stem));
  return noiseStems.has(term);
}

/** Content terms of free text: split, stop words dropped, stemmed; `dropCodeNoise` also drops keywords. */
export function analyze(text: string, dropCodeNoise = false): string[] {
  noiseStems ??= new Set([...CODE_NOISE].map(stem));
  const out: string[] = [];
  for (const word of text.split(/[^A-Za-z0-9]+/)) {
    if (!word) continue;
    for (const t of wordTerms(word)) if (!dropCodeNoise || !noiseStems.has(t)) out.push(t);
  }
  return out;
}

/** A whole identifier as one term (`get_attr` and `getAttr` → `getattr`); '' when too short. */
export function wholeTerm(name: string): string {
  const w = name.toLowerCase().replace(/[^a-z0-9]+/g, '');
  return w.length >= 2 ? w : '';
}

/** Drops the word and stem memos (they only speed up one build; queries stem a few words). */
export function clearWordMemos(): void {
  wordMemo.clear();
  stemMemo.clear();
}
