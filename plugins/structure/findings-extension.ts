/**
 * The built-in scan rules' findings as a parse extension (the graph engine's parse-extensions.ts):
 * the ingest's parse workers run them on the tree they already made, and the engine stores them per
 * file content, so a `scan`/`scan_all` right after an ingest (or in a new process) reads them instead
 * of parsing every file again. Runs in a parse worker: imports nothing but the rule code.
 *
 * The dependency-injection rules ask whether a name is one of the workspace's classes, which is
 * not known during the parse: their findings are kept with the name asked (`needsClass`) and the
 * reader keeps those naming a class of the graph. A file whose outcome would depend on more than
 * that (a rule at its match cap with such findings, a check asking about two names) stores nothing:
 * the scan then computes that file's facts itself. When the ingest's tree is of another text than
 * the file's (a byte-order mark stripped, a syntax repair), the file is parsed again as the scan
 * would parse it.
 */
import type { ParseExtensionInput } from '../graph/api.ts';
import { capAnchored, DeferredClasses, findingsOf, MAX_MATCHES_PER_RULE_FILE, type RawFinding } from './file-facts.ts';

/** What is stored per file: findings by rule id, each without its `file` (the row's path). */
export interface StoredFindings {
  f: Record<string, Omit<RawFinding, 'file'>[]>;
}

export default function findingsExtension(input: ParseExtensionInput): StoredFindings | null {
  const own = input.source === input.text ? null : input.parse(input.text);
  const classes = new DeferredClasses();
  const parsed = { tree: own ?? input.tree, language: input.language, query: input.query, done: () => undefined };
  let findings: ReturnType<typeof findingsOf>;
  try {
    findings = findingsOf(parsed, input.text, input.path, classes);
  } finally {
    own?.delete();
  }
  if (classes.ambiguous) return null;
  const f: StoredFindings['f'] = {};
  for (const [rule, all] of Object.entries(findings)) {
    // Anchored rules come uncapped, in anchor order: a rule whose findings need no class is capped here, the others by the reader.
    const anchored = all.length > 0 && all[0].order !== undefined;
    const byClass = all.some((x) => x.needsClass !== undefined);
    if (!anchored && byClass && all.length >= MAX_MATCHES_PER_RULE_FILE) return null; // a whole-tree rule's cap would depend on the classes
    const list = anchored && !byClass ? capAnchored(all, () => true) : all;
    f[rule] = list.map(({ file: _file, order, ...rest }) => (anchored && byClass ? { ...rest, order } : rest));
  }
  return { f };
}
