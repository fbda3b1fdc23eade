/**
 * Adding or replacing one file's nodes: the file node and one node per symbol, keeping the node
 * indices of symbols that stay so edges other files own into them survive. It reports the names
 * whose meaning changed, which the builder uses to find other files to re-link.
 */
import { posix } from 'node:path';
import type { ExtractedSymbol } from './extraction.ts';
import { fileNodeId, symbolNodeId, type CodeGraph, type GraphNode, type NodeKind } from './graph.ts';
import type { FileIndex } from './file-index.ts';
import type { FileState } from './file-state.ts';
import type { FileInput, GitFacts } from './graph-change.ts';
import { reexportKey } from './resolve-names.ts';
import { isTestFile } from './test-files.ts';
import { changedTypeFactNames, typeFactsOf } from './type-facts.ts';

const SYMBOL_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'function', 'method', 'type', 'section']);

/** What upserting a file's nodes needs from the builder. */
export interface FileNodeContext {
  readonly graph: CodeGraph;
  readonly paths: FileIndex;
  readonly git: GitFacts | null;
  /** Adds a new symbol node to the name table. */
  indexSymbol(idx: number): void;
  /** Takes a symbol node out of the name table and the graph, noting files that had edges into it. */
  dropSymbol(idx: number, affected: Set<string>): void;
}

/** Creates or updates the file node and its symbol nodes, keeping indices of symbols that stay. */
export function upsertFileNodes(
  ctx: FileNodeContext,
  input: FileInput,
  prev: FileState | undefined,
  affected: Set<string>,
): { state: FileState; nodesAdded: number; namesChanged: string[] } {
  const g = ctx.graph;
  const { path, language, extraction } = input;
  const isTest = isTestFile(path, language);
  const gitInfo = ctx.git?.files.get(path);
  const fileNode: GraphNode = {
    id: fileNodeId(path),
    kind: 'file',
    label: posix.basename(path),
    path,
    startLine: 1,
    endLine: Math.max(1, extraction.loc),
    language,
    isTest,
  };
  if (gitInfo) {
    fileNode.lastCommitAt = gitInfo.lastCommitAt;
    fileNode.commitCount = gitInfo.commitCount;
  }
  let nodesAdded = prev ? 0 : 1;
  const fileIdx = g.upsertNode(fileNode);
  if (!prev) ctx.paths.add(path);

  // Deduplicate qualified names (conditional definitions) with a stable ~N suffix.
  const seen = new Map<string, number>();
  const wanted = new Map<string, { sym: ExtractedSymbol; q: string }>();
  for (const sym of extraction.symbols) {
    if (!SYMBOL_KINDS.has(sym.kind)) continue;
    const n = (seen.get(sym.qualifiedName) ?? 0) + 1;
    seen.set(sym.qualifiedName, n);
    const q = n === 1 ? sym.qualifiedName : `${sym.qualifiedName}~${n}`;
    const id = symbolNodeId(sym.kind as NodeKind, path, q);
    if (wanted.has(id)) continue;
    wanted.set(id, { sym, q });
  }
  const namesChanged: string[] = [];
  const symbols = new Map<string, number>();
  const typeFacts = typeFactsOf(extraction);
  if (prev && prev.typeFacts.signature !== typeFacts.signature) {
    // Receiver types elsewhere read these facts under the names of their owners.
    namesChanged.push(...changedTypeFactNames(prev.typeFacts, typeFacts), reexportKey(path));
  }
  if (prev) {
    for (const idx of prev.symbols.values()) {
      const old = g.node(idx)!;
      const keep = wanted.get(old.id);
      if (!keep) {
        namesChanged.push(old.label);
        ctx.dropSymbol(idx, affected);
      } else if ((keep.sym.exported ?? true) !== (old.exported ?? true)) {
        // Visibility decides global-name matches elsewhere.
        namesChanged.push(old.label);
      }
    }
  }
  for (const [id, { sym, q }] of wanted) {
    const node: GraphNode = {
      id,
      kind: sym.kind as NodeKind,
      label: sym.name,
      path,
      startLine: sym.startLine,
      endLine: Math.max(sym.startLine, sym.endLine),
      language,
      qualifiedName: q,
    };
    if (sym.exported !== undefined) node.exported = sym.exported;
    if (sym.doc) node.doc = sym.doc;
    if (sym.signatures) node.signatures = sym.signatures;
    // A test in a source file (Rust's unit tests) ranks as a test; a test file's symbols take the file's flag.
    if (sym.test && !isTest) node.isTest = true;
    // A file seen for the first time cannot have nodes yet: skip the lookup.
    const existed = prev !== undefined && g.indexOf(id) >= 0;
    const idx = g.upsertNode(node);
    symbols.set(q, idx);
    if (!existed) {
      nodesAdded++;
      namesChanged.push(sym.name);
      ctx.indexSymbol(idx);
    }
  }
  const symbolParents = parentColumn(wanted, symbols);
  const state: FileState = prev ?? {
    path,
    language,
    extraction,
    partial: input.partial === true,
    parseErrors: extraction.parseErrors,
    parseErrorLine: extraction.parseErrorLine ?? 0,
    isTest,
    fileNode: fileIdx,
    symbols,
    symbolParents,
    ownedEdges: [],
    imports: [],
    globalNames: [],
    missStems: [],
    importTargets: [],
    typeFacts,
  };
  state.language = language;
  state.extraction = extraction;
  state.partial = input.partial === true;
  // New content: checker edges of the old text no longer hold.
  state.precise = input.precise ?? null;
  state.parseErrors = extraction.parseErrors;
  state.parseErrorLine = extraction.parseErrorLine ?? 0;
  state.isTest = isTest;
  state.fileNode = fileIdx;
  state.symbols = symbols;
  state.symbolParents = symbolParents;
  state.typeFacts = typeFacts;
  return { state, nodesAdded, namesChanged };
}

/**
 * Each symbol's enclosing symbol (looked up by its raw qualified name, so the first of duplicates) as
 * a node index, -1 for the file, in the order of `symbols`. Two wanted entries share a qualified
 * name only when a name already ends like a dedupe suffix (`a~2`): the later one's parent wins, as
 * it wins the symbol table's entry.
 */
function parentColumn(wanted: ReadonlyMap<string, { sym: ExtractedSymbol; q: string }>, symbols: ReadonlyMap<string, number>): Int32Array {
  const out = new Int32Array(symbols.size);
  const parentOf = (p: string | undefined): number => (p !== undefined ? (symbols.get(p) ?? -1) : -1);
  let at = 0;
  if (wanted.size === symbols.size) {
    for (const { sym } of wanted.values()) out[at++] = parentOf(sym.parent);
    return out;
  }
  const byQ = new Map<string, string | undefined>();
  for (const { sym, q } of wanted.values()) byQ.set(q, sym.parent);
  for (const q of symbols.keys()) out[at++] = parentOf(byQ.get(q));
  return out;
}
