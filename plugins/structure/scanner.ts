/**
 * Runs scan rules over the files of the graph: each file is parsed once per call and every rule's
 * query runs on its tree; results of the built-in rules are kept per file content hash, so a later
 * scan re-parses only files that changed. Graph validation then places each finding in its
 * enclosing symbol and weighs it by how many other files depend on that symbol.
 */
import type { CodeGraph, GraphNode, GraphService, Language } from '../graph/api.ts';
import { ensureFinal, fileIndexOf } from '../graph/api.ts';
import { CODE_LANGUAGES, excerpt, linesOf, parseCode, type Node } from './code-trees.ts';
import { CODE_RULES, type CodeRule, type PresetName, type RuleContext } from './code-rules.ts';
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
}

type RawFinding = Omit<Finding, 'node' | 'dependents'>;
const MAX_MATCHES_PER_RULE_FILE = 200;
const MAX_CACHED_FILES = 20_000;

/** Per file: the content hash and each built-in rule's findings on it. */
const cache = new Map<string, { root: string; hash: string; byRule: Map<string, RawFinding[]> }>();

const isJs = (l: Language) => l === 'typescript' || l === 'tsx' || l === 'javascript';

/** Runs the rules of `presets` plus the custom rules over every code file in scope, then the graph presets. */
export async function runScan(graph: GraphService, request: ScanRequest): Promise<ScanOutcome> {
  const engine = graph.engine;
  const g = engine.graph;
  ensureFinal(g);
  const wanted = new Set(request.presets);
  const rules = CODE_RULES.filter((r) => wanted.has(r.preset));
  const all = [...rules, ...request.custom];
  const classNames = new Set<string>();
  if (wanted.has('dependency_injection')) for (const [, n] of g.nodes()) if (n.kind === 'class') classNames.add(n.label);
  const files: GraphNode[] = [];
  for (const [, n] of g.nodes()) if (n.kind === 'file' && n.language && CODE_LANGUAGES.includes(n.language) && request.inScope(n.path)) files.push(n);
  files.sort((a, b) => a.path.localeCompare(b.path));
  const hashes = all.length > 0 ? engine.storedFiles() : new Map();
  const raw: RawFinding[] = [];
  let scanned = 0;
  let fromCache = 0;
  for (const file of files) {
    if (all.length === 0) break;
    if (request.deadline.spent()) break;
    await request.deadline.pace();
    const language = file.language!;
    const applicable = all.filter((r) => r.languages.includes(language));
    if (applicable.length === 0) {
      scanned++;
      continue;
    }
    const hash = hashes.get(file.path)?.hash ?? '';
    let entry = cache.get(file.path);
    if (!entry || entry.hash !== hash || entry.root !== engine.root) entry = { root: engine.root, hash, byRule: new Map() };
    const missing = applicable.filter((r) => !entry!.byRule.has(r.id) || request.custom.includes(r));
    if (missing.length === 0) fromCache++;
    else {
      let text: string;
      try {
        text = engine.readFile(file.path).content;
      } catch {
        continue; // gone since the last ingest: the next ingest drops it
      }
      if (missing.every((r) => r.needs && !r.needs.test(text))) {
        for (const rule of missing) entry.byRule.set(rule.id, []);
        if (hash) cache.set(file.path, entry);
        for (const rule of applicable) raw.push(...(entry.byRule.get(rule.id) ?? []));
        scanned++;
        continue;
      }
      const parsed = await parseCode(language, text);
      if (!parsed) continue;
      try {
        const ctx: RuleContext = { classNames, text };
        for (const rule of missing) entry.byRule.set(rule.id, rule.needs && !rule.needs.test(text) ? [] : runRule(rule, parsed.query(rule.query), parsed.tree.rootNode, ctx, file.path));
      } finally {
        parsed.done();
      }
      if (hash) {
        if (cache.size >= MAX_CACHED_FILES) cache.clear();
        cache.set(file.path, entry);
      }
    }
    for (const rule of applicable) raw.push(...(entry.byRule.get(rule.id) ?? []));
    for (const rule of request.custom) if (rule.languages.includes(language)) entry.byRule.delete(rule.id);
    scanned++;
  }
  const fileOf = fileIndexOf(g);
  const symbolsOf = new Map<string, GraphNode[]>();
  const findings: Finding[] = [];
  for (let k = 0; k < raw.length; k++) {
    if ((k & 255) === 0) await request.deadline.pace();
    const f = raw[k];
    if (!request.graphValidate) findings.push(f);
    else {
      let symbols = symbolsOf.get(f.file);
      if (!symbols) symbolsOf.set(f.file, (symbols = graph.fileSymbols(f.file)));
      findings.push(validate(g, symbols, f, fileOf));
    }
  }
  const lines = new Map<string, string[]>();
  for (const gf of graphFindings(g, wanted, request.inScope)) {
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
  };
}

function runRule(rule: CodeRule, query: ReturnType<NonNullable<Awaited<ReturnType<typeof parseCode>>>['query']>, root: Node, ctx: RuleContext, path: string): RawFinding[] {
  const out: RawFinding[] = [];
  const seen = new Set<number>();
  for (const match of query.matches(root, { matchLimit: 4096 })) {
    const captures: Record<string, Node> = {};
    for (const c of match.captures) captures[c.name] ??= c.node;
    const hit = captures.hit ?? match.captures[0]?.node;
    if (!hit || seen.has(hit.id)) continue;
    const verdict = rule.check ? rule.check({ ...captures, hit }, ctx) : true;
    if (verdict === false) continue;
    seen.add(hit.id);
    const refined = typeof verdict === 'object' ? verdict : {};
    out.push({ pattern: rule.preset, rule: rule.id, file: path, lines: linesOf(hit), severity: refined.severity ?? rule.severity, message: refined.message ?? rule.message, code: excerpt(hit) });
    if (out.length >= MAX_MATCHES_PER_RULE_FILE) break;
  }
  return out;
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
    { id: `${name}.keywords.other`, preset: name as PresetName, languages: ['python', 'rust', 'go', 'java'], query: `((identifier) @hit ${predicate})`, severity, message: `uses ${words.join('/')}` },
  ];
}
