/**
 * The graph builder: turns file extractions into nodes and edges, and patches the graph when files
 * change. Every edge is owned by the file whose extraction produced it (or by the git history, or by
 * the directory tree), so a changed file drops and rebuilds exactly its own edges; other files are
 * re-resolved only when their answers could change (they import the file, consulted a changed name
 * in the workspace-wide table, had an edge into a removed node, or had an unresolved import that the
 * new file may satisfy). A full build is the same code path with every file affected.
 */
import { posix } from 'node:path';
import type { ExtractedSymbol, FileExtraction, Language } from './extraction.ts';
import {
  CodeGraph,
  DEFAULT_WEIGHTS,
  RELATION_CODE,
  STRUCTURAL_CONTAINS_WEIGHT,
  fileNodeId,
  moduleNodeId,
  symbolNodeId,
  type GraphNode,
  type NodeKind,
} from './graph.ts';
import {
  ResolveCache,
  buildFileScope,
  emptyResolverConfig,
  resolveCall,
  resolveImport,
  resolveMention,
  resolveTypeName,
  type FileScope,
  type NameResolution,
  type PathIndex,
  type ResolvedImport,
  type ResolverConfig,
  type SymbolTables,
} from './resolve.ts';
import { isTestFile, testedBasenames } from './test-files.ts';

/** One file to add or replace. */
export interface FileInput {
  path: string;
  language: Language;
  extraction: FileExtraction;
}

/** Per-file git facts and co-change pairs (weights already in (0,1]). */
export interface GitFacts {
  files: Map<string, { lastCommitAt: number; commitCount: number }>;
  pairs: { a: string; b: string; weight: number }[];
}

/** A batch of changes for `GraphBuilder.apply`. */
export interface GraphChange {
  upsert: readonly FileInput[];
  remove: readonly string[];
  /** New git facts; undefined keeps the current ones. */
  git?: GitFacts | null;
  /** New resolver settings; undefined keeps the current ones (a change re-resolves every file). */
  config?: ResolverConfig;
}

/** What one `apply` did. */
export interface ApplyReport {
  /** Files whose edges were rebuilt (the changed ones plus those whose resolution could change). */
  resolvedFiles: number;
  nodesAdded: number;
  nodesRemoved: number;
}

/** An import that did not resolve to a workspace file, kept as a record (never as an edge). */
export interface UnresolvedImport {
  from: string;
  specifier: string;
  line: number;
  resolved: false;
  reason: 'external' | 'not_found';
}

interface FileState {
  path: string;
  language: Language;
  /** The extraction, or null once linked when the builder re-loads extractions on demand. */
  extraction: FileExtraction | null;
  parseErrors: number;
  isTest: boolean;
  fileNode: number;
  /** qualifiedName (deduplicated) → node index. */
  symbols: Map<string, number>;
  /** qualifiedName (deduplicated) → qualifiedName of the enclosing symbol. */
  symbolParents: Map<string, string | undefined>;
  ownedEdges: number[];
  imports: ResolvedImport[];
  /** Names this file looked up in the workspace-wide table (invalidation keys). */
  globalNames: Set<string>;
  /** Basename stems of imports/links that did not resolve (invalidation keys for added files). */
  missStems: string[];
  /** Files this file's imports resolved to (registered in `importers`). */
  importTargets: string[];
}

const REL = RELATION_CODE;
const SYMBOL_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'function', 'method', 'type', 'section']);

function dirOf(path: string): string {
  const d = posix.dirname(path);
  return d === '.' ? '' : d;
}

/** The last path segment without extension, or the directory name for index-like files. */
function pathStems(path: string): string[] {
  const base = posix.basename(path);
  const stem = base.replace(/\.[^.]+$/, '').replace(/\.d$/, '');
  const out = [stem.toLowerCase()];
  if (['index', '__init__', 'mod', 'lib', 'main'].includes(stem)) {
    const dir = posix.basename(dirOf(path));
    if (dir) out.push(dir.toLowerCase());
  }
  return out;
}

function specifierStem(spec: string): string {
  const clean = spec.replace(/[?#].*$/, '').replace(/::\{.*$/, '').replace(/(::|\.)\*$/, '');
  const last = clean.split(/[/.:\\]+/).filter(Boolean).pop() ?? '';
  return last.toLowerCase();
}

function linkStem(target: string): string {
  const clean = target.replace(/[?#].*$/, '').replace(/:\d+(:\d+)?$/, '').replace(/\/$/, '');
  return posix.basename(clean).replace(/\.[^.]+$/, '').toLowerCase();
}

function addTo<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const s = m.get(k);
  if (s && s.delete(v) && s.size === 0) m.delete(k);
}

function insertSorted(list: string[], value: string): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  if (list[lo] !== value) list.splice(lo, 0, value);
}

function emptyExtraction(path: string, language: Language): FileExtraction {
  return { path, language, loc: 0, symbols: [], imports: [], calls: [], inherits: [], references: [], docLinks: [], parseErrors: 0 };
}

/** GitHub-style heading anchor. */
function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Builder settings. */
export interface GraphBuilderOptions {
  /**
   * Re-loads a file's extraction when it must be re-linked. When given, extractions are dropped
   * from memory once linked (the graph keeps what queries need); without it they are retained.
   */
  loadExtraction?: (path: string) => FileExtraction | null;
}

/** Builds and patches a CodeGraph from file extractions. */
export class GraphBuilder implements SymbolTables, PathIndex {
  readonly graph = new CodeGraph();
  private readonly files = new Map<string, FileState>();
  private readonly dirFiles = new Map<string, string[]>();
  private readonly basenames = new Map<string, string[]>();
  private readonly byName = new Map<string, number[]>();
  private readonly importers = new Map<string, Set<string>>();
  private readonly globalDeps = new Map<string, Set<string>>();
  private readonly missStems = new Map<string, Set<string>>();
  private readonly parents = new Map<number, number[]>();
  private readonly modules = new Map<string, { node: number; edge: number }>();
  private gitEdges: number[] = [];
  private git: GitFacts | null = null;
  private config: ResolverConfig = emptyResolverConfig();
  private cache = new ResolveCache();
  private readonly loadExtraction: ((path: string) => FileExtraction | null) | null;

  constructor(options: GraphBuilderOptions = {}) {
    this.loadExtraction = options.loadExtraction ?? null;
  }

  // --- PathIndex ------------------------------------------------------------------------------
  /** True when a file with this path is in the graph. */
  has(path: string): boolean {
    return this.files.has(path);
  }
  /** Files directly in a directory, sorted. */
  filesInDir(dir: string): readonly string[] {
    return this.dirFiles.get(dir) ?? [];
  }
  /** Files with this basename. */
  filesNamed(basename: string): readonly string[] {
    return this.basenames.get(basename) ?? [];
  }
  /** Directories holding files. */
  directories(): Iterable<string> {
    return this.dirFiles.keys();
  }

  // --- SymbolTables ---------------------------------------------------------------------------
  /** Node index of a symbol by file and qualified name, or -1. */
  symbolIn(path: string, qualifiedName: string): number {
    return this.files.get(path)?.symbols.get(qualifiedName) ?? -1;
  }
  /** Code symbols (not sections) with this short name. */
  named(name: string): readonly number[] {
    return this.byName.get(name) ?? [];
  }
  /** Live node by index (callers only pass indices taken from the tables). */
  node(index: number): GraphNode {
    return this.graph.node(index)!;
  }
  /** Resolved parents of a class-like node. */
  parentsOf(index: number): readonly number[] {
    const p = this.parents.get(index);
    return p ? p.filter((i) => this.graph.node(i) !== null) : [];
  }

  // --- queries --------------------------------------------------------------------------------
  /** Paths of all files in the graph. */
  filePaths(): IterableIterator<string> {
    return this.files.keys();
  }
  /** A file's extraction (re-loaded when it was dropped from memory). */
  extraction(path: string): FileExtraction | undefined {
    const st = this.files.get(path);
    if (!st) return undefined;
    return st.extraction ?? this.loadExtraction?.(path) ?? undefined;
  }

  /** Parse errors the parser reported for a file (0 when clean or unknown). */
  parseErrorsOf(path: string): number {
    return this.files.get(path)?.parseErrors ?? 0;
  }
  /** Resolved imports of a file (resolved and not). */
  importsOf(path: string): readonly ResolvedImport[] {
    return this.files.get(path)?.imports ?? [];
  }
  /** Every import that did not resolve to a workspace file. */
  unresolvedImports(): UnresolvedImport[] {
    const out: UnresolvedImport[] = [];
    for (const st of this.files.values()) {
      for (const imp of st.imports) {
        if (imp.unresolved) out.push({ from: st.path, specifier: imp.specifier, line: imp.line, resolved: false, reason: imp.unresolved });
      }
    }
    return out;
  }
  /** Current resolver settings. */
  get resolverConfig(): ResolverConfig {
    return this.config;
  }
  /** Current git facts, if any. */
  get gitFacts(): GitFacts | null {
    return this.git;
  }

  // --- mutation -------------------------------------------------------------------------------

  /** Applies a batch of file changes, re-resolves what they can affect, and finalizes the graph. */
  apply(change: GraphChange): ApplyReport {
    const g = this.graph;
    const before = g.nodeCount;
    let added = 0;
    const affected = new Set<string>();
    const changedNames = new Set<string>();
    const pathsChanged: string[] = [];
    // The first build links every file; computing what it "affects" would only cost time.
    let allAffected = this.files.size === 0;
    this.cache = new ResolveCache();

    if (change.config && JSON.stringify(change.config) !== JSON.stringify(this.config)) {
      this.config = change.config;
      allAffected = true;
    }

    for (const path of change.remove) {
      const st = this.files.get(path);
      if (!st) continue;
      pathsChanged.push(path);
      for (const o of this.importers.get(path) ?? []) affected.add(o);
      this.dropOwnedEdges(st);
      for (const idx of st.symbols.values()) {
        changedNames.add(this.node(idx).label);
        this.unindexSymbol(idx);
        this.removeNodeAndNoteOwners(idx, affected);
      }
      this.removeNodeAndNoteOwners(st.fileNode, affected);
      this.files.delete(path);
      this.unindexPath(path);
    }

    for (const input of change.upsert) {
      const prev = this.files.get(input.path);
      if (!prev) pathsChanged.push(input.path);
      const { state, nodesAdded, namesChanged } = this.upsertFile(input, prev, affected);
      added += nodesAdded;
      for (const n of namesChanged) changedNames.add(n);
      if (namesChanged.length) {
        for (const o of this.importers.get(input.path) ?? []) affected.add(o);
        if (input.language === 'go') for (const f of this.filesInDir(dirOf(input.path))) affected.add(f);
      }
      affected.add(state.path);
    }

    if (!allAffected) {
      for (const path of pathsChanged) {
        for (const stem of pathStems(path)) for (const f of this.missStems.get(stem) ?? []) affected.add(f);
        // A package (Go) or wildcard (Java) import of the directory now names one file more or less.
        for (const sibling of this.filesInDir(dirOf(path))) for (const o of this.importers.get(sibling) ?? []) affected.add(o);
      }
      for (const name of changedNames) for (const f of this.globalDeps.get(name) ?? []) affected.add(f);
    }

    const targets = allAffected ? [...this.files.keys()] : [...affected].filter((p) => this.files.has(p));
    targets.sort();
    this.updateModules(pathsChanged);
    // Files to re-link whose extraction was dropped after their last link: load them back.
    for (const p of targets) {
      const st = this.files.get(p)!;
      if (!st.extraction) st.extraction = this.loadExtraction?.(p) ?? emptyExtraction(p, st.language);
    }
    for (const p of targets) this.dropOwnedEdges(this.files.get(p)!);
    // Imports first (they depend only on the file set), then inheritance (member lookup through
    // parents needs it), then everything else.
    for (const p of targets) this.resolveImports(this.files.get(p)!);
    const scopes = new Map(targets.map((p) => [p, this.scopeOf(this.files.get(p)!)]));
    for (const p of targets) this.linkInheritance(this.files.get(p)!, scopes.get(p)!);
    for (const p of targets) this.linkFile(this.files.get(p)!, scopes.get(p)!);
    if (this.loadExtraction) for (const p of targets) this.files.get(p)!.extraction = null;

    if (change.git !== undefined || pathsChanged.length > 0) {
      if (change.git !== undefined) this.git = change.git;
      this.applyGit();
    }

    // Reclaim dead edge slots when they dominate, so traversal arrays stay dense.
    if (g.edgeCapacity > 4096 && g.edgeCount < g.edgeCapacity / 2) this.compact();
    else g.finalize();
    return { resolvedFiles: targets.length, nodesAdded: added, nodesRemoved: before + added - g.nodeCount };
  }

  private compact(): void {
    const remap = this.graph.compactEdges();
    const fix = (ids: number[]): number[] => ids.map((e) => remap[e]).filter((e) => e >= 0);
    for (const st of this.files.values()) st.ownedEdges = fix(st.ownedEdges);
    this.gitEdges = fix(this.gitEdges);
    for (const m of this.modules.values()) m.edge = m.edge >= 0 ? remap[m.edge] : -1;
  }

  private removeNodeAndNoteOwners(idx: number, affected: Set<string>): void {
    const removedEdges = this.graph.removeNode(idx);
    if (removedEdges.length === 0) return;
    // Files owning an edge into this node must re-resolve (the name may now point elsewhere).
    for (const e of removedEdges) {
      const src = this.graph.node(this.graph.edgeSource[e]);
      if (src && src.kind !== 'module' && src !== this.graph.node(idx)) affected.add(src.path);
    }
  }

  private indexPath(path: string): void {
    const dir = dirOf(path);
    let list = this.dirFiles.get(dir);
    if (!list) this.dirFiles.set(dir, (list = []));
    insertSorted(list, path);
    const base = posix.basename(path);
    let b = this.basenames.get(base);
    if (!b) this.basenames.set(base, (b = []));
    insertSorted(b, path);
  }

  private unindexPath(path: string): void {
    const dir = dirOf(path);
    const list = this.dirFiles.get(dir);
    if (list) {
      const i = list.indexOf(path);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.dirFiles.delete(dir);
    }
    const base = posix.basename(path);
    const b = this.basenames.get(base);
    if (b) {
      const i = b.indexOf(path);
      if (i >= 0) b.splice(i, 1);
      if (b.length === 0) this.basenames.delete(base);
    }
  }

  private indexSymbol(idx: number): void {
    const n = this.node(idx);
    if (n.kind === 'section') return;
    let list = this.byName.get(n.label);
    if (!list) this.byName.set(n.label, (list = []));
    list.push(idx);
  }

  private unindexSymbol(idx: number): void {
    const n = this.graph.node(idx);
    if (!n || n.kind === 'section') return;
    const list = this.byName.get(n.label);
    if (!list) return;
    const i = list.indexOf(idx);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byName.delete(n.label);
    this.parents.delete(idx);
  }

  /** Creates or updates the file node and its symbol nodes, keeping indices of symbols that stay. */
  private upsertFile(input: FileInput, prev: FileState | undefined, affected: Set<string>): { state: FileState; nodesAdded: number; namesChanged: string[] } {
    const g = this.graph;
    const { path, language, extraction } = input;
    const isTest = isTestFile(path, language);
    const gitInfo = this.git?.files.get(path);
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
    if (!prev) this.indexPath(path);

    // Deduplicate qualified names (conditional definitions) with a stable ~N suffix.
    const seen = new Map<string, number>();
    const wanted = new Map<string, { sym: ExtractedSymbol; q: string }>();
    const symbolParents = new Map<string, string | undefined>();
    for (const sym of extraction.symbols) {
      if (!SYMBOL_KINDS.has(sym.kind)) continue;
      const n = (seen.get(sym.qualifiedName) ?? 0) + 1;
      seen.set(sym.qualifiedName, n);
      const q = n === 1 ? sym.qualifiedName : `${sym.qualifiedName}~${n}`;
      const id = symbolNodeId(sym.kind as NodeKind, path, q);
      if (wanted.has(id)) continue;
      wanted.set(id, { sym, q });
      symbolParents.set(q, sym.parent);
    }
    const namesChanged: string[] = [];
    const symbols = new Map<string, number>();
    if (prev) {
      for (const idx of prev.symbols.values()) {
        const old = this.node(idx);
        const keep = wanted.get(old.id);
        if (!keep) {
          namesChanged.push(old.label);
          this.unindexSymbol(idx);
          this.removeNodeAndNoteOwners(idx, affected);
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
      const existing = g.indexOf(id);
      const prevNode = existing >= 0 ? g.node(existing) : null;
      const idx = g.upsertNode(node);
      symbols.set(q, idx);
      if (!prevNode) {
        nodesAdded++;
        namesChanged.push(sym.name);
        this.indexSymbol(idx);
      }
    }
    const state: FileState = prev ?? {
      path,
      language,
      extraction,
      parseErrors: extraction.parseErrors,
      isTest,
      fileNode: fileIdx,
      symbols,
      symbolParents,
      ownedEdges: [],
      imports: [],
      globalNames: new Set(),
      missStems: [],
      importTargets: [],
    };
    state.language = language;
    state.extraction = extraction;
    state.parseErrors = extraction.parseErrors;
    state.isTest = isTest;
    state.fileNode = fileIdx;
    state.symbols = symbols;
    state.symbolParents = symbolParents;
    this.files.set(path, state);
    return { state, nodesAdded, namesChanged };
  }

  private dropOwnedEdges(st: FileState): void {
    for (const e of st.ownedEdges) this.graph.removeEdge(e);
    st.ownedEdges = [];
    for (const name of st.globalNames) removeFrom(this.globalDeps, name, st.path);
    st.globalNames = new Set();
    for (const stem of st.missStems) removeFrom(this.missStems, stem, st.path);
    st.missStems = [];
    for (const t of st.importTargets) removeFrom(this.importers, t, st.path);
    st.importTargets = [];
    for (const idx of st.symbols.values()) this.parents.delete(idx);
  }

  private resolveImports(st: FileState): void {
    st.imports = st.extraction!.imports.map((imp) => resolveImport(imp, st.path, st.language, this, this.config, this.cache));
    const targets = new Set<string>();
    const stems = new Set<string>();
    for (const imp of st.imports) {
      for (const t of imp.targets) if (t !== st.path) targets.add(t);
      if (imp.unresolved) stems.add(specifierStem(imp.specifier));
    }
    st.importTargets = [...targets];
    for (const t of targets) addTo(this.importers, t, st.path);
    st.missStems = [...stems].filter(Boolean);
    for (const s of st.missStems) addTo(this.missStems, s, st.path);
  }

  private scopeOf(st: FileState): FileScope {
    return buildFileScope(st.path, st.language, st.imports, this.filesInDir(dirOf(st.path)));
  }

  private sourceOf(st: FileState, qualifiedName: string | null): number {
    if (qualifiedName === null) return st.fileNode;
    return st.symbols.get(qualifiedName) ?? st.fileNode;
  }

  private noteGlobal(st: FileState, name: string, r: NameResolution): void {
    if (!r.global || st.globalNames.has(name)) return;
    st.globalNames.add(name);
    addTo(this.globalDeps, name, st.path);
  }

  private linkInheritance(st: FileState, scope: FileScope): void {
    const edges = new EdgeBatch(this.graph, st);
    for (const inh of st.extraction!.inherits) {
      const child = st.symbols.get(inh.child);
      if (child === undefined) continue;
      const r = resolveTypeName(inh.parent, inh.child, scope, this);
      this.noteGlobal(st, inh.parent.split(/[.:]+/).pop() ?? inh.parent, r);
      const rel = inh.kind === 'implements' ? 'implements' : 'inherits';
      for (const t of r.targets) {
        if (t === child) continue;
        edges.add(child, t, REL[rel], DEFAULT_WEIGHTS[rel] * r.confidence);
        let p = this.parents.get(child);
        if (!p) this.parents.set(child, (p = []));
        if (!p.includes(t)) p.push(t);
      }
    }
    edges.commit();
  }

  private linkFile(st: FileState, scope: FileScope): void {
    const g = this.graph;
    const ex = st.extraction!;
    const edges = new EdgeBatch(g, st);
    // contains: directory → file, file → top-level symbols, symbol → nested symbols.
    const mod = this.modules.get(dirOf(st.path));
    if (mod) edges.add(mod.node, st.fileNode, REL.contains, STRUCTURAL_CONTAINS_WEIGHT);
    for (const [q, idx] of st.symbols) {
      const parentQ = st.symbolParents.get(q);
      const parent = parentQ !== undefined ? st.symbols.get(parentQ) : undefined;
      edges.add(parent ?? st.fileNode, idx, REL.contains, DEFAULT_WEIGHTS.contains);
    }
    // imports: file → file.
    const tested = new Set<number>();
    for (const imp of st.imports) {
      for (const t of imp.targets) {
        const st2 = this.files.get(t);
        if (!st2 || st2 === st) continue;
        edges.add(st.fileNode, st2.fileNode, REL.imports, DEFAULT_WEIGHTS.imports);
        if (st.isTest && !st2.isTest) tested.add(st2.fileNode);
      }
    }
    // calls: caller symbol (or file for top-level code) → callee.
    for (const call of ex.calls) {
      const r = resolveCall(call, scope, this);
      this.noteGlobal(st, call.callee, r);
      if (r.targets.length === 0) continue;
      const src = this.sourceOf(st, call.caller);
      for (const t of r.targets) {
        if (t === src) continue;
        edges.add(src, t, REL.calls, DEFAULT_WEIGHTS.calls * r.confidence);
        if (st.isTest && this.files.get(this.node(t).path)?.isTest === false) {
          edges.add(st.fileNode, t, REL.tests, DEFAULT_WEIGHTS.tests * r.confidence);
        }
      }
    }
    // references: symbol → type.
    for (const ref of ex.references) {
      const r = resolveTypeName(ref.name, ref.from, scope, this);
      this.noteGlobal(st, ref.name.split(/[.:]+/).pop() ?? ref.name, r);
      const src = this.sourceOf(st, ref.from);
      for (const t of r.targets) if (t !== src) edges.add(src, t, REL.references, DEFAULT_WEIGHTS.references * r.confidence);
    }
    // tests: test file → imported source files, and → the source file it is named after.
    if (st.isTest) {
      for (const f of tested) edges.add(st.fileNode, f, REL.tests, DEFAULT_WEIGHTS.tests);
      const names = testedBasenames(st.path, st.language);
      for (const base of names) {
        const cands = this.filesNamed(base).filter((p) => !this.files.get(p)!.isTest);
        const same = cands.filter((p) => dirOf(p) === dirOf(st.path));
        // The counterpart lives beside the test, or is the only file of that name elsewhere.
        const pick = same.length ? same : cands.length === 1 ? cands : [];
        for (const p of pick) edges.add(st.fileNode, this.files.get(p)!.fileNode, REL.tests, DEFAULT_WEIGHTS.tests);
      }
      // Until the counterpart exists, adding it must re-link this test file.
      if (names.length && !names.some((b) => this.filesNamed(b).length)) this.noteMiss(st, linkStem(names[0]));
    }
    // documents: doc section → file / directory / symbol it links or names.
    for (const link of ex.docLinks) {
      const src = st.symbols.get(link.section) ?? st.fileNode;
      if (link.kind === 'code_symbol') {
        const r = resolveMention(link.target, this);
        const name = link.target.replace(/\(.*\)$/, '').split(/\.|::|#/).filter(Boolean).pop() ?? link.target;
        this.noteGlobal(st, name, r);
        for (const t of r.targets) edges.add(src, t, REL.documents, DEFAULT_WEIGHTS.documents * r.confidence);
        continue;
      }
      const t = this.resolveDocPath(st.path, link.target, link.kind === 'code_path');
      if (t >= 0) edges.add(src, t, REL.documents, DEFAULT_WEIGHTS.documents);
      else if (!/^[a-z][a-z0-9+.-]*:/i.test(link.target)) this.noteMiss(st, linkStem(link.target));
    }
    edges.commit();
  }

  private noteMiss(st: FileState, stem: string): void {
    if (!stem || st.missStems.includes(stem)) return;
    st.missStems.push(stem);
    addTo(this.missStems, stem, st.path);
  }

  /** A link or code path in a doc → a file, section or directory node, or -1. */
  private resolveDocPath(docPath: string, target: string, fromRootFirst: boolean): number {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return -1; // URLs, mailto:
    const [rawPath, anchor] = target.split('#', 2);
    let clean = rawPath.split('?')[0].replace(/:\d+(:\d+)?$/, '');
    try {
      clean = decodeURIComponent(clean);
    } catch {
      // keep the raw text when it is not valid percent-encoding
    }
    if (clean === '') {
      return anchor ? this.sectionBySlug(docPath, anchor) : -1;
    }
    const bases = clean.startsWith('/') ? [''] : fromRootFirst ? ['', dirOf(docPath)] : [dirOf(docPath), ''];
    for (const b of bases) {
      const p = posix.normalize(posix.join(b, clean.replace(/^\//, ''))).replace(/\/$/, '');
      if (p.startsWith('..')) continue;
      if (this.files.has(p)) {
        if (anchor) {
          const s = this.sectionBySlug(p, anchor);
          if (s >= 0) return s;
        }
        return this.files.get(p)!.fileNode;
      }
      const mod = this.modules.get(p === '.' ? '' : p);
      if (mod) return mod.node;
    }
    return -1;
  }

  private sectionBySlug(path: string, anchor: string): number {
    const st = this.files.get(path);
    if (!st) return -1;
    const want = anchor.toLowerCase();
    for (const idx of st.symbols.values()) {
      const n = this.node(idx);
      if (n.kind === 'section' && slug(n.label) === want) return idx;
    }
    return -1;
  }

  /** Directory nodes for every directory holding files (and their ancestors), with containment. */
  private updateModules(pathsChanged: readonly string[]): void {
    const g = this.graph;
    const needed = (dir: string): boolean => {
      if (this.dirFiles.has(dir)) return true;
      const prefix = dir === '' ? '' : `${dir}/`;
      for (const d of this.modules.keys()) if (d !== dir && d.startsWith(prefix) && this.dirFiles.has(d)) return true;
      return false;
    };
    const ensure = (dir: string): number => {
      const have = this.modules.get(dir);
      if (have) return have.node;
      const node: GraphNode = {
        id: moduleNodeId(dir),
        kind: 'module',
        label: dir === '' ? '.' : posix.basename(dir),
        path: dir === '' ? '.' : dir,
        startLine: 0,
        endLine: 0,
        language: null,
      };
      const idx = g.upsertNode(node);
      const entry = { node: idx, edge: -1 };
      this.modules.set(dir, entry);
      if (dir !== '') entry.edge = g.addEdge(ensure(dirOf(dir)), idx, REL.contains, STRUCTURAL_CONTAINS_WEIGHT);
      return idx;
    };
    for (const path of pathsChanged) {
      let dir = dirOf(path);
      if (this.files.has(path)) {
        ensure(dir);
        continue;
      }
      // Removed: prune empty directories bottom-up.
      for (;;) {
        const m = this.modules.get(dir);
        if (!m || needed(dir)) break;
        g.removeNode(m.node);
        this.modules.delete(dir);
        if (dir === '') break;
        dir = dirOf(dir);
      }
    }
  }

  private applyGit(): void {
    const g = this.graph;
    for (const e of this.gitEdges) g.removeEdge(e);
    this.gitEdges = [];
    const facts = this.git;
    for (const st of this.files.values()) {
      const n = this.node(st.fileNode);
      const info = facts?.files.get(st.path);
      if (info) {
        n.lastCommitAt = info.lastCommitAt;
        n.commitCount = info.commitCount;
      } else {
        delete n.lastCommitAt;
        delete n.commitCount;
      }
    }
    if (!facts) return;
    for (const { a, b, weight } of facts.pairs) {
      const sa = this.files.get(a);
      const sb = this.files.get(b);
      if (!sa || !sb || weight <= 0) continue;
      const w = Math.min(1, weight) * DEFAULT_WEIGHTS.co_changes;
      this.gitEdges.push(g.addEdge(sa.fileNode, sb.fileNode, REL.co_changes, w));
      this.gitEdges.push(g.addEdge(sb.fileNode, sa.fileNode, REL.co_changes, w));
    }
  }
}

/** Collects one file's edges, keeping the strongest of duplicates, then adds them to the graph. */
class EdgeBatch {
  private readonly best = new Map<number, number>();
  constructor(
    private readonly graph: CodeGraph,
    private readonly owner: FileState,
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
