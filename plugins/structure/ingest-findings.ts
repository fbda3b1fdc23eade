/**
 * The built-in rules' findings the ingest computed (findings-extension.ts, registered with the graph
 * engine as a parse extension): registration, and reading them back for a scan. A file has them when
 * its last parse ran the extension on its current content under the current rule set; the scan
 * computes the facts of the others itself (facts-cache.ts).
 */
import { createHash } from 'node:crypto';
import type { GraphService, Language, ParseExtensionSpec } from '../graph/api.ts';
import { CODE_RULES } from './code-rules.ts';
import { factsVersion } from './facts-store.ts';
import { capAnchored, type RawFinding } from './file-facts.ts';
import findingsExtension, { type StoredFindings } from './findings-extension.ts';

export const FINDINGS_KEY = 'structure.findings';
/** Raised by hand when the stored layout changes in a way the code hash below would not show. */
const FORMAT = 1;
/** Per-file budget of the rules in the parse (a slower file is left to the scan). */
const BUDGET_MS = 500;

/** Languages with built-in code rules. */
const LANGUAGES = [...new Set(CODE_RULES.flatMap((r) => r.languages))] as Language[];

/** The extension's version: the facts version (rules, their code, the grammars) and the extension's own code. */
export function findingsVersion(): string {
  return createHash('sha1').update(`${FORMAT}\n${factsVersion()}\n${findingsExtension.toString()}`).digest('hex').slice(0, 16);
}

/**
 * The findings extension as the graph engine registers it. Its version is a getter, hashed on the
 * engine's first need (an ingest, a read of stored findings): a process that never does either — a
 * `m1nd call health` — never hashes the rule set, stats the grammars or loads `node:crypto`.
 */
export function findingsExtensionSpec(): ParseExtensionSpec {
  const here = new URL(import.meta.url);
  const module = new URL(here.pathname.endsWith('.ts') ? './findings-extension.ts' : './findings-extension.js', here).href;
  return {
    key: FINDINGS_KEY,
    get version() {
      return findingsVersion();
    },
    module,
    languages: LANGUAGES,
    budgetMs: BUDGET_MS,
  };
}

/** Registers the findings extension with the graph engine: ingests from now on compute them in their parse. */
export function registerFindingsExtension(graph: GraphService): void {
  graph.registerParseExtension(findingsExtensionSpec());
}

/**
 * The ingest's findings of `files` (those that have them), by path and rule id, with the class-name
 * condition applied against `classNames` (the graph's classes) — what the facts would hold.
 */
export function ingestFindings(graph: GraphService, files: readonly { path: string }[], classNames: ReadonlySet<string>): Map<string, Record<string, RawFinding[]>> {
  const out = new Map<string, Record<string, RawFinding[]>>();
  if (files.length === 0) return out;
  let stored: Map<string, StoredFindings>;
  try {
    stored = graph.engine.extensionData<StoredFindings>(FINDINGS_KEY, files.map((f) => f.path));
  } catch {
    return out; // no store, or one written before the table existed and opened read-only
  }
  for (const [path, data] of stored) {
    const byRule: Record<string, RawFinding[]> = {};
    for (const [rule, stored] of Object.entries(data.f)) {
      const keep = (x: Omit<RawFinding, 'file'>) => x.needsClass === undefined || classNames.has(x.needsClass);
      // An anchored rule's findings that depend on the classes come uncapped, in anchor order.
      const list = stored.length > 0 && stored[0].order !== undefined ? capAnchored(stored as RawFinding[], keep) : stored.filter(keep);
      if (list.length) byRule[rule] = list.map((x) => ({ pattern: x.pattern, rule: x.rule, file: path, lines: x.lines, severity: x.severity, message: x.message, code: x.code }));
    }
    out.set(path, byRule);
  }
  return out;
}
