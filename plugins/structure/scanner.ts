/**
 * Runs scan rules over the files of the graph: the built-in rules' findings come from each file's
 * facts (facts-cache.ts: one parse per file content, in worker threads for many files), custom
 * rules parse the files in scope here. Graph validation then places each finding in its
 * enclosing symbol and weighs it by how many other files depend on that symbol.
 */
import type { CodeGraph, GraphNode, GraphService, Language } from '../graph/api.ts';
import { ensureFinal, fileIndexOf, warmFileIndex } from '../graph/api.ts';
import { CODE_LANGUAGES } from './code-trees.ts';
import { CODE_RULES, type CodeRule, type PresetName } from './code-rules.ts';
import { asVerbWork, classNamesOf, factsCounters, factsOf, warmClassNames } from './facts-cache.ts';
import { ingestFindings } from './ingest-findings.ts';
import { parseFile } from './grammars.ts';
import { MAX_MATCHES_PER_RULE_FILE, runRuleQuery, type RawFinding } from './file-facts.ts';
import type { Deadline } from './deadline.ts';
import { dependentFiles, graphFindings } from './graph-rules.ts';

export interface Finding {
  pattern: string;
  rule: string;
  file: string;
  lines: [number, number];
  severity: number;
  message: string;
  code: string;
  /** The innermost graph symbol holding the finding (graph validation). */
  node?: string;
  /** Other files depending on that symbol. */
  dependents?: number;
}

export interface ScanRequest {
  presets: readonly PresetName[];
  /** Extra rules from the call or the config (not cached). */
  custom: readonly CodeRule[];
  inScope: (path: string) => boolean;
  severityMin: number;
  graphValidate: boolean;
  deadline: Deadline;
}

export interface ScanOutcome {
  findings: Finding[];
  files_scanned: number;
  files_total: number;
  files_from_cache: number;
  /** Files whose facts came from the persisted table (a previous process). */
  files_from_store: number;
  /** Files whose built-in findings came from the ingest's parse (ingest-findings.ts). */
  files_from_ingest: number;
  /** Files parsed for this scan's built-in rules. */
  files_parsed: number;
  /** Worker threads that parsed the uncached files (0: this thread). */
  parse_workers: number;
  /** Files where a rule stopped at its per-file limit (more matches may follow), when any did. */
  files_capped?: CappedFiles;
}

/** Files where a rule stopped at MAX_MATCHES_PER_RULE_FILE matches: how many pairs, and the first few. */
export interface CappedFiles {
  limit: number;
  count: number;
  sample: { file: string; rule: string }[];
}

function cappedFiles(raw: readonly RawFinding[]): CappedFiles | undefined {
  const perPair = new Map<string, number>();
  for (const f of raw) {
    const key = `${f.rule}\0${f.file}`;
    perPair.set(key, (perPair.get(key) ?? 0) + 1);
  }
  const capped = [...perPair].filter(([, n]) => n >= MAX_MATCHES_PER_RULE_FILE).map(([key]) => key.split('\0'));
  if (capped.length === 0) return undefined;
  return { limit: MAX_MATCHES_PER_RULE_FILE, count: capped.length, sample: capped.slice(0, 10).map(([rule, file]) => ({ file, rule })) };
}

/** Runs the rules of `presets` plus the custom rules over every code file in scope, then the graph presets (the background facts job pauses meanwhile). */
export function runScan(graph: GraphService, request: ScanRequest): Promise<ScanOutcome> {
  return asVerbWork(() => scan(graph, request));
}

async function scan(graph: GraphService, request: ScanRequest): Promise<ScanOutcome> {
  const engine = graph.engine;
  const g = engine.graph;
  ensureFinal(g);
  const wanted = new Set(request.presets);
  const builtin = CODE_RULES.filter((r) => wanted.has(r.preset));
  const files: GraphNode[] = [];
  for (const [, n] of g.nodes()) if (n.kind === 'file' && n.language && CODE_LANGUAGES.includes(n.language) && request.inScope(n.path)) files.push(n);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)); // work order only: the findings are sorted at the end
  const raw: RawFinding[] = [];
  let scanned = files.length;
  let fromCache = 0;
  let fromStore = 0;
  let parsed = 0;
  let workers = 0;
  let fromIngest = 0;
  // Built-in rules: from the per-file facts (one parse per file content, shared with twins).
  const withBuiltin = builtin.length ? files.filter((f) => builtin.some((r) => r.languages.includes(f.language!))) : [];
  if (withBuiltin.length) {
    // The ingest's own findings first; facts (memory, persisted, or parsed) for the rest.
    await warmClassNames(g, () => request.deadline.pace());
    const fromParse = ingestFindings(graph, withBuiltin, classNamesOf(g).set);
    const rest = withBuiltin.filter((f) => !fromParse.has(f.path));
    const outcome = rest.length ? await factsOf(graph, rest.map((f) => ({ path: f.path, language: f.language! })), request.deadline) : null;
    fromIngest = fromParse.size;
    factsCounters.fromIngest += fromIngest;
    fromCache = outcome?.fromCache ?? 0;
    fromStore = outcome?.fromStore ?? 0;
    parsed = outcome?.computed ?? 0;
    workers = outcome?.workers ?? 0;
    for (const f of withBuiltin) {
      const findings = fromParse.get(f.path) ?? outcome?.facts.get(f.path)?.findings;
      if (!findings) continue;
      for (const rule of builtin) if (rule.languages.includes(f.language!)) raw.push(...(findings[rule.id] ?? []));
    }
    scanned = files.length - withBuiltin.length + fromParse.size + (outcome?.facts.size ?? 0);
  }
  // Custom rules (from the call, the config or an antibody): parsed here, never cached.
  if (request.custom.length) {
    const classNames = new Set<string>();
    let customScanned = 0;
    for (const file of files) {
      if (request.deadline.spent()) break;
      await request.deadline.pace();
      const applicable = request.custom.filter((r) => r.languages.includes(file.language!));
      customScanned++;
      if (applicable.length === 0) continue;
      let text: string;
      try {
        text = engine.readFile(file.path).content;
      } catch {
        continue; // gone since the last ingest: the next ingest drops it
      }
      const live = applicable.filter((r) => !r.needs || r.needs.test(text));
      if (live.length === 0) continue;
      const parsed = await parseFile(file.language!, text);
      if (!parsed) continue;
      try {
        for (const rule of live) raw.push(...runRuleQuery(rule, parsed, { classNames, text }, file.path));
      } finally {
        parsed.done();
      }
    }
    scanned = Math.min(scanned, customScanned);
  }
  const capped = cappedFiles(raw);
  await warmFileIndex(g, () => request.deadline.pace());
  const fileOf = fileIndexOf(g);
  const symbolsOf = new Map<string, GraphNode[]>();
  const findings: Finding[] = [];
  for (let k = 0; k < raw.length; k++) {
    if ((k & 31) === 0) await request.deadline.pace(); // a finding of a new file reads that file's symbols and their edges
    const f = raw[k];
    if (!request.graphValidate) findings.push(f);
    else {
      let symbols = symbolsOf.get(f.file);
      if (!symbols) symbolsOf.set(f.file, (symbols = graph.fileSymbols(f.file)));
      findings.push(validate(g, symbols, f, fileOf));
    }
  }
  const lines = new Map<string, string[]>();
  const fromGraph = await graphFindings(g, wanted, request.inScope, () => request.deadline.pace());
  for (let k = 0; k < fromGraph.length; k++) {
    const gf = fromGraph[k];
    if ((k & 63) === 0) await request.deadline.pace(); // a finding's file is read for its line
    let text = lines.get(gf.node.path);
    if (!text) {
      try {
        text = engine.readFile(gf.node.path).content.split('\n');
      } catch {
        text = [];
      }
      lines.set(gf.node.path, text);
    }
    findings.push({ pattern: gf.preset, rule: gf.rule, file: gf.node.path, lines: [gf.node.startLine, gf.node.endLine], severity: round(gf.severity), message: gf.message, code: (text[gf.node.startLine - 1] ?? '').trim().slice(0, 240), node: gf.node.id, dependents: gf.dependents });
  }
  return {
    findings: findings.filter((f) => f.severity >= request.severityMin).sort((a, b) => b.severity - a.severity || a.file.localeCompare(b.file) || a.lines[0] - b.lines[0]),
    files_scanned: scanned,
    files_total: files.length,
    files_from_cache: fromCache,
    files_from_store: fromStore,
    files_from_ingest: fromIngest,
    files_parsed: parsed,
    parse_workers: workers,
    ...(capped ? { files_capped: capped } : {}),
  };
}

function validate(g: CodeGraph, symbols: readonly GraphNode[], f: RawFinding, fileOf: Int32Array): Finding {
  let holder: GraphNode | null = null;
  for (const s of symbols) if (s.startLine <= f.lines[0] && s.endLine >= f.lines[1] && s.kind !== 'section') holder = s; // line order: the last match is the innermost
  const file = g.get(`file:${f.file}`);
  const index = holder ? g.indexOf(holder.id) : -1;
  const dependents = index >= 0 ? dependentFiles(g, index, fileOf) : 0;
  const testFactor = file?.isTest ? 0.5 : 1;
  const severity = round(Math.min(1, f.severity * (1 + 0.15 * Math.log2(1 + dependents)) * testFactor));
  return { ...f, severity, ...(holder ? { node: holder.id, dependents } : {}) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

const isJs = (l: Language) => l === 'typescript' || l === 'tsx' || l === 'javascript';

/** A custom rule from a tree-sitter query (one language family) or keywords (identifiers in code, not comments or strings). */
export function customRule(spec: { query?: string; language?: Language; keywords?: readonly string[]; severity?: number; name?: string }): CodeRule[] {
  const severity = spec.severity ?? 0.5;
  const name = spec.name ?? 'custom';
  if (spec.query) {
    const languages: Language[] = spec.language ? (isJs(spec.language) ? ['typescript', 'tsx', 'javascript'] : [spec.language]) : ['typescript', 'tsx', 'javascript'];
    // Without captures the whole pattern is the hit; otherwise `@hit`, or else the first capture.
    const query = spec.query.includes('@') ? spec.query : `${spec.query.trim()} @hit`;
    return [{ id: `${name}.query`, preset: name as PresetName, languages, query, severity, message: `matches the ${name} query` }];
  }
  const words = (spec.keywords ?? []).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
  if (words.length === 0) return [];
  const insensitive = words.map((w) => [...w].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch === '$' ? '\\$' : ch)).join('')).join('|');
  const predicate = `(#match? @hit "^(${insensitive})$")`;
  return [
    { id: `${name}.keywords.js`, preset: name as PresetName, languages: ['typescript', 'tsx', 'javascript'], query: `([(identifier) (property_identifier) (type_identifier) (shorthand_property_identifier)] @hit ${predicate})`, severity, message: `uses ${words.join('/')}` },
    // A name used as a type or a field is another node type than identifier in these grammars.
    { id: `${name}.keywords.go`, preset: name as PresetName, languages: ['go', 'rust'], query: `([(identifier) (type_identifier) (field_identifier)] @hit ${predicate})`, severity, message: `uses ${words.join('/')}` },
    { id: `${name}.keywords.java`, preset: name as PresetName, languages: ['java'], query: `([(identifier) (type_identifier)] @hit ${predicate})`, severity, message: `uses ${words.join('/')}` },
    { id: `${name}.keywords.other`, preset: name as PresetName, languages: ['python'], query: `((identifier) @hit ${predicate})`, severity, message: `uses ${words.join('/')}` },
  ];
}
