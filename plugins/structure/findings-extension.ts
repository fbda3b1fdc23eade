/**
 * The built-in scan rules' findings as a parse extension (the graph engine's parse-extensions.ts):
 * the ingest's parse workers run them on the tree they already made, and the engine stores them per
 * file content, so a `scan`/`scan_all` right after an ingest (or in a new process) reads them instead
 * of parsing every file again. Runs in a parse worker: imports nothing but the rule code.
 *
 * The dependency-injection rules ask whether a name is one of the workspace's classes, which is
 * not known during the parse: their findings are kept with the name asked (`needsClass`) and the
 * reader keeps those naming a class of the graph. A file whose outcome would depend on more than
 * that (a rule at its match cap with such findings, a check asking about two names) stores nothing,
 * as does a tree parsed from another text than the file's (a byte-order mark or a syntax repair):
 * the scan then computes that file's facts itself.
 */
import type { ParseExtensionInput } from '../graph/api.ts';
import { DeferredClasses, findingsOf, MAX_MATCHES_PER_RULE_FILE, type RawFinding } from './file-facts.ts';

/** What is stored per file: findings by rule id, each without its `file` (the row's path). */
export interface StoredFindings {
  f: Record<string, Omit<RawFinding, 'file'>[]>;
}

export default function findingsExtension(input: ParseExtensionInput): StoredFindings | null {
  if (input.source !== input.text) return null;
  const classes = new DeferredClasses();
  const parsed = { tree: input.tree, language: input.language, query: input.query, done: () => undefined };
  const findings = findingsOf(parsed, input.text, input.path, classes);
  if (classes.ambiguous) return null;
  const f: StoredFindings['f'] = {};
  for (const [rule, list] of Object.entries(findings)) {
    if (list.length >= MAX_MATCHES_PER_RULE_FILE && list.some((x) => x.needsClass !== undefined)) return null;
    f[rule] = list.map(({ file: _file, ...rest }) => rest);
  }
  return { f };
}
