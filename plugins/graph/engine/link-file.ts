/**
 * Linking one file: turns its extraction into the edges it owns — containment, imports, calls,
 * references, inheritance, tests and documents — resolving names through the builder's tables.
 * The builder decides which files to link and when; this module only knows how.
 */
import { posix } from 'node:path';
import type { FileExtraction, Language } from './extraction.ts';
import { DEFAULT_WEIGHTS, RELATION_CODE as REL, STRUCTURAL_CONTAINS_WEIGHT, type CodeGraph } from './graph.ts';
import { dirOf, type ResolvedImport } from './resolve.ts';
import { assignedSibling, resolveAccess, resolveCall, resolveMention, resolveTypeName, withBindings, type Dependencies, type FileScope, type SymbolTables } from './resolve-names.ts';
import { testedBasenames } from './test-files.ts';
import { traitImplementations } from './trait-dispatch.ts';
import { mapPreciseEdges, unresolvedCallSites } from './ts-program/link-precise.ts';
import type { PreciseEdge } from './ts-program/protocol.ts';

/** What linking reads and writes of a file's state. */
export interface LinkedFile {
  path: string;
  language: Language;
  extraction: FileExtraction | null;
  isTest: boolean;
  fileNode: number;
  /** qualifiedName (deduplicated) → node index. */
  symbols: Map<string, number>;
  /**
   * For the i-th entry of `symbols` (in its order), the node index of its enclosing symbol, or -1
   * (the file). A typed column: a map of qualified names per file held ~16 MB on the python3 prefix.
   */
  symbolParents: Int32Array;
  /** Edge ids this file owns (appended to). */
  ownedEdges: number[];
  imports: ResolvedImport[];
  /** The checker pass's edges (TS/JS): when set, they replace the name-resolved calls. */
  precise?: readonly PreciseEdge[] | null;
}

/** What linking needs from the builder. */
export interface LinkContext extends SymbolTables {
  readonly graph: CodeGraph;
  file(path: string): LinkedFile | undefined;
  filesNamed(basename: string): readonly string[];
  /** Node index of a directory's module node, or -1. */
  moduleNode(dir: string): number;
  /** Records a resolved parent of a class-like node (for member lookups). */
  addParent(child: number, parent: number): void;
  /** Records the names a file's resolutions depended on (incremental invalidation). */
  noteDependencies(file: LinkedFile, names: Dependencies): void;
  /** Records that something named like `stem` did not resolve (a file of that name may fix it). */
  noteMiss(file: LinkedFile, stem: string): void;
}

const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The basename stem of a link or file name (invalidation key for unresolved links). */
export function linkStem(target: string): string {
  const clean = target.replace(/[?#].*$/, '').replace(/:\d+(:\d+)?$/, '').replace(/\/$/, '');
  return posix.basename(clean).replace(/\.[^.]+$/, '').toLowerCase();
}

/** GitHub-style heading anchor. */
function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function sourceOf(st: LinkedFile, qualifiedName: string | null): number {
  if (qualifiedName === null) return st.fileNode;
  return st.symbols.get(qualifiedName) ?? st.fileNode;
}

/** Links a file's inherits/implements edges (done for every file of a batch before `linkFile`). */
export function linkInheritance(ctx: LinkContext, st: LinkedFile, scope: FileScope): void {
  const edges = new EdgeBatch(ctx.graph, st);
  const deps: Dependencies = [];
  for (const inh of st.extraction!.inherits) {
    const child = st.symbols.get(inh.child);
    if (child === undefined) continue;
    const r = resolveTypeName(inh.parent, inh.child, scope, ctx, deps, inh.qualifier);
    const rel = inh.kind === 'implements' ? 'implements' : 'inherits';
    for (const t of r.targets) {
      if (t === child) continue;
      edges.add(child, t, REL[rel], DEFAULT_WEIGHTS[rel] * r.confidence);
      ctx.addParent(child, t);
    }
  }
  ctx.noteDependencies(st, deps);
  edges.commit();
}

/** Links everything else a file owns: contains, imports, calls, references, tests, documents. */
export function linkFile(ctx: LinkContext, st: LinkedFile, fileScope: FileScope): void {
  const ex = st.extraction!;
  const scope = withBindings(fileScope, ex.bindings);
  const edges = new EdgeBatch(ctx.graph, st);
  const deps: Dependencies = [];
  // contains: directory → file, file → top-level symbols, symbol → nested symbols.
  const mod = ctx.moduleNode(dirOf(st.path));
  if (mod >= 0) edges.add(mod, st.fileNode, REL.contains, STRUCTURAL_CONTAINS_WEIGHT);
  let i = 0;
  for (const idx of st.symbols.values()) {
    const parent = st.symbolParents[i++];
    edges.add(parent >= 0 ? parent : st.fileNode, idx, REL.contains, DEFAULT_WEIGHTS.contains);
  }
  // imports: file → file.
  const tested = new Set<number>();
  for (const imp of st.imports) {
    for (const t of imp.targets) {
      const other = ctx.file(t);
      if (!other || other === st) continue;
      edges.add(st.fileNode, other.fileNode, REL.imports, DEFAULT_WEIGHTS.imports);
      if (st.isTest && !other.isTest) tested.add(other.fileNode);
    }
  }
  // calls: caller symbol (or the file, for top-level code) → callee; checker edges when there are some.
  if (st.precise) {
    for (const e of mapPreciseEdges({ node: (i) => ctx.node(i), symbolsOf: (p) => ctx.file(p)?.symbols.values() }, st.path, st.fileNode, st.precise)) {
      edges.add(e.source, e.target, REL[e.relation], DEFAULT_WEIGHTS[e.relation]);
      if (e.relation === 'calls' && st.isTest && ctx.file(ctx.node(e.target).path)?.isTest === false) edges.add(st.fileNode, e.target, REL.tests, DEFAULT_WEIGHTS.tests);
    }
  }
  // The checker types `this` in a method assigned on an object as that object, which is `any` when it
  // comes from `Object.create(…)` or an untyped module: its calls of the object's own methods stay.
  if (st.precise) {
    for (const call of ex.calls) {
      const t = assignedSibling(call, scope, ctx);
      const src = t >= 0 ? sourceOf(st, call.caller) : -1;
      if (t >= 0 && t !== src) edges.add(src, t, REL.calls, DEFAULT_WEIGHTS.calls);
    }
  }
  const implementations = new Map<number, readonly number[]>();
  // With checker edges, only the member calls it found no declaration for are resolved by name.
  const unresolved = st.precise ? unresolvedCallSites(st.precise) : null;
  const byName = unresolved ? (unresolved.size ? ex.calls.filter((c) => unresolved.has(`${c.line}\0${c.callee}`)) : []) : ex.calls;
  for (const call of byName) {
    const r = call.access ? resolveAccess(call, scope, ctx, deps) : resolveCall(call, scope, ctx, deps);
    if (r.targets.length === 0) continue;
    const src = sourceOf(st, call.caller);
    for (const t of r.targets) {
      if (t === src) continue;
      edges.add(src, t, REL.calls, DEFAULT_WEIGHTS.calls * r.confidence);
      if (st.isTest && ctx.file(ctx.node(t).path)?.isTest === false) edges.add(st.fileNode, t, REL.tests, DEFAULT_WEIGHTS.tests * r.confidence);
      // A call of a Rust trait's method may run any implementation of it.
      let impls = implementations.get(t);
      if (!impls) implementations.set(t, (impls = st.language === 'rust' ? traitImplementations(ctx, t, deps) : []));
      for (const impl of impls) if (impl !== src) edges.add(src, impl, REL.dispatches, DEFAULT_WEIGHTS.dispatches * r.confidence);
    }
  }
  // references: symbol → type.
  for (const ref of ex.references) {
    const r = resolveTypeName(ref.name, ref.from, scope, ctx, deps);
    const src = sourceOf(st, ref.from);
    for (const t of r.targets) if (t !== src) edges.add(src, t, REL.references, DEFAULT_WEIGHTS.references * r.confidence);
  }
  // tests: test file → imported source files, and → the source file it is named after.
  if (st.isTest) {
    for (const f of tested) edges.add(st.fileNode, f, REL.tests, DEFAULT_WEIGHTS.tests);
    const names = testedBasenames(st.path, st.language);
    for (const base of names) {
      const cands = ctx.filesNamed(base).filter((p) => ctx.file(p)?.isTest === false);
      const same = cands.filter((p) => dirOf(p) === dirOf(st.path));
      // The counterpart lives beside the test, or is the only file of that name elsewhere.
      const pick = same.length ? same : cands.length === 1 ? cands : [];
      for (const p of pick) edges.add(st.fileNode, ctx.file(p)!.fileNode, REL.tests, DEFAULT_WEIGHTS.tests);
    }
    // Until the counterpart exists, adding it must re-link this test file.
    if (names.length && !names.some((b) => ctx.filesNamed(b).length)) ctx.noteMiss(st, linkStem(names[0]));
  }
  // documents: doc section → file / directory / section / symbol it links or names.
  for (const link of ex.docLinks) {
    const src = st.symbols.get(link.section) ?? st.fileNode;
    if (link.kind === 'code_symbol') {
      const r = resolveMention(link.target, ctx, deps);
      for (const t of r.targets) edges.add(src, t, REL.documents, DEFAULT_WEIGHTS.documents * r.confidence);
      continue;
    }
    const t = resolveDocPath(ctx, st.path, link.target, link.kind === 'code_path');
    if (t >= 0) edges.add(src, t, REL.documents, DEFAULT_WEIGHTS.documents);
    else if (!URL_SCHEME.test(link.target)) ctx.noteMiss(st, linkStem(link.target));
  }
  ctx.noteDependencies(st, deps);
  edges.commit();
}

/** A link or code path in a doc → a file, section or directory node, or -1. */
function resolveDocPath(ctx: LinkContext, docPath: string, target: string, fromRootFirst: boolean): number {
  if (URL_SCHEME.test(target) || target.startsWith('//')) return -1; // URLs, mailto:
  const [rawPath, anchor] = target.split('#', 2);
  let clean = rawPath.split('?')[0].replace(/:\d+(:\d+)?$/, '');
  try {
    clean = decodeURIComponent(clean);
  } catch {
    // keep the raw text when it is not valid percent-encoding
  }
  if (clean === '') return anchor ? sectionBySlug(ctx, docPath, anchor) : -1;
  const bases = clean.startsWith('/') ? [''] : fromRootFirst ? ['', dirOf(docPath)] : [dirOf(docPath), ''];
  for (const b of bases) {
    const p = posix.normalize(posix.join(b, clean.replace(/^\//, ''))).replace(/\/$/, '');
    if (p.startsWith('..')) continue;
    const file = ctx.file(p);
    if (file) {
      const s = anchor ? sectionBySlug(ctx, p, anchor) : -1;
      return s >= 0 ? s : file.fileNode;
    }
    const mod = ctx.moduleNode(p === '.' ? '' : p);
    if (mod >= 0) return mod;
  }
  return -1;
}

function sectionBySlug(ctx: LinkContext, path: string, anchor: string): number {
  const st = ctx.file(path);
  if (!st) return -1;
  const want = anchor.toLowerCase();
  for (const idx of st.symbols.values()) {
    const n = ctx.node(idx);
    if (n.kind === 'section' && slug(n.label) === want) return idx;
  }
  return -1;
}

/** Collects one file's edges, keeping the strongest of duplicates, then adds them to the graph. */
class EdgeBatch {
  private readonly best = new Map<number, number>();
  constructor(
    private readonly graph: CodeGraph,
    private readonly owner: LinkedFile,
  ) {}

  add(source: number, target: number, relation: number, weight: number): void {
    if (source === target || weight <= 0) return;
    // Numeric key (source, relation, target); exact while node indices stay below 2^26.
    const key = (source * 16 + relation) * 67108864 + target;
    const cur = this.best.get(key);
    if (cur === undefined || weight > cur) this.best.set(key, weight);
  }

  commit(): void {
    for (const [key, weight] of this.best) {
      const target = key % 67108864;
      const rest = (key - target) / 67108864;
      const relation = rest % 16;
      const source = (rest - relation) / 16;
      this.owner.ownedEdges.push(this.graph.addEdge(source, target, relation, Math.min(1, weight)));
    }
    this.best.clear();
  }
}
