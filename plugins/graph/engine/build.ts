/**
 * The graph builder: turns file extractions into nodes and edges, and patches the graph when files
 * change. Every edge is owned by the file whose extraction produced it (or by the git history, or by
 * the directory tree), so a changed file drops and rebuilds exactly its own edges; other files are
 * re-linked only when their answers could change: they had an edge into a removed node, depended on
 * a name a changed file (un)defines, walked a class whose parents changed, or had an import or link
 * that a new file may satisfy. A full build is the same code path with every file affected.
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
import { FileIndex, pathStems, specifierStems } from './file-index.ts';
import { linkFile, linkInheritance, type LinkContext, type LinkedFile } from './link-file.ts';
import type { ParseErrorFile } from './parse-report.ts';
import { ResolveCache, dirOf, emptyResolverConfig, resolveImport, type PathIndex, type ResolvedImport, type ResolverConfig } from './resolve.ts';
import { buildFileScope, reexportKey, type Dependencies, type FileScope } from './resolve-names.ts';
import { isTestFile } from './test-files.ts';
import { typeFactNames, typeFactsOf, type TypeFacts } from './type-facts.ts';
import type { PreciseEdge } from './ts-program/protocol.ts';

/** One file to add or replace. */
export interface FileInput {
  path: string;
  language: Language;
  extraction: FileExtraction;
  /**
   * True when `extraction` holds only symbols, imports and inherits (calls, references and doc
   * links left out to keep memory low); the builder loads the full one when it links the file.
   */
  partial?: boolean;
  /** The checker pass's edges for this content, when known (TS/JS); they replace name-resolved calls. */
  precise?: readonly PreciseEdge[] | null;
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

interface FileState extends LinkedFile {
  /** The extraction, or null once linked when the builder re-loads extractions on demand. */
  extraction: FileExtraction | null;
  /** True while `extraction` lacks calls, references and doc links (see FileInput.partial). */
  partial: boolean;
  parseErrors: number;
  /** Line of the first parse error (0 when clean or not recorded). */
  parseErrorLine: number;
  /** qualifiedName split at its last dot: prefix ('' for top level) → last segment → node index. */
  members: Map<string, Map<string, number>>;
  /** Names this file looked up in the workspace-wide table (invalidation keys). */
  globalNames: string[];
  /** Basename stems of imports/links that did not resolve (invalidation keys for added files). */
  missStems: string[];
  /** Files this file's imports resolved to (registered in `importers`). */
  importTargets: string[];
  /** What other files' receiver types read here: declared return types and class fields. */
  typeFacts: TypeFacts;
}

const REL = RELATION_CODE;
const SYMBOL_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'function', 'method', 'type', 'section']);

function addTo<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const s = m.get(k);
  if (s && s.delete(v) && s.size === 0) m.delete(k);
}

function emptyExtraction(path: string, language: Language): FileExtraction {
  return { path, language, loc: 0, symbols: [], imports: [], calls: [], inherits: [], references: [], docLinks: [], parseErrors: 0 };
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
export class GraphBuilder implements LinkContext, PathIndex {
  readonly graph = new CodeGraph();
  private readonly files = new Map<string, FileState>();
  private readonly paths = new FileIndex();
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
  private readonly fileScopes = new Map<string, FileScope>();
  /** Java package path → its files across source roots (rebuilt every relink). */
  private readonly javaPackages = new Map<string, string[]>();

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
    return this.paths.inDir(dir);
  }
  /** Files with this basename. */
  filesNamed(basename: string): readonly string[] {
    return this.paths.named(basename);
  }
  /** Directories holding files. */
  directories(): Iterable<string> {
    return this.paths.directories();
  }

  // --- SymbolTables ---------------------------------------------------------------------------
  /** Node index of a symbol by file and qualified name, or -1. */
  symbolIn(path: string, qualifiedName: string): number {
    return this.files.get(path)?.symbols.get(qualifiedName) ?? -1;
  }
  /** Node index of `${prefix}.${name}` (or top-level `name`) in a file, or -1. */
  memberIn(path: string, prefix: string, name: string): number {
    return this.files.get(path)?.members.get(prefix)?.get(name) ?? -1;
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

  /** Declared result type of a function or method node. */
  returnTypeOf(index: number): string | undefined {
    const n = this.node(index);
    return this.files.get(n.path)?.typeFacts.returns.get(n.qualifiedName ?? '');
  }
  /** Declared parameter types of a Java method or constructor node. */
  paramsOf(index: number): readonly string[] | undefined {
    const n = this.node(index);
    return this.files.get(n.path)?.typeFacts.params.get(n.qualifiedName ?? '');
  }
  /** True for a Python `@property` getter node. */
  isProperty(index: number): boolean {
    const n = this.node(index);
    return this.files.get(n.path)?.typeFacts.properties.has(n.qualifiedName ?? '') ?? false;
  }
  /** A field a class-like node declares. */
  fieldOf(classIndex: number, name: string): { type?: string; value?: string } | undefined {
    const n = this.node(classIndex);
    return this.files.get(n.path)?.typeFacts.fields.get(n.qualifiedName ?? '')?.get(name);
  }
  /** Lookups of a file (imports resolved in its last link), cached until the next relink. */
  scopeOfFile(path: string): FileScope | undefined {
    let scope = this.fileScopes.get(path);
    if (!scope) {
      const st = this.files.get(path);
      if (!st) return undefined;
      this.fileScopes.set(path, (scope = this.scopeOf(st)));
    }
    return scope;
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
  /** Every file whose parse had errors, in no particular order. */
  *parseErrorFiles(): IterableIterator<ParseErrorFile> {
    for (const st of this.files.values()) if (st.parseErrors > 0) yield { path: st.path, errors: st.parseErrors, firstLine: st.parseErrorLine };
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
      changedNames.add(reexportKey(path));
      this.files.delete(path);
      this.paths.remove(path);
    }

    for (const input of change.upsert) {
      const prev = this.files.get(input.path);
      if (!prev) pathsChanged.push(input.path);
      const { state, nodesAdded, namesChanged } = this.upsertFile(input, prev, affected);
      added += nodesAdded;
      for (const n of namesChanged) changedNames.add(n);
      // Files that resolved a name into this one and lost it are found through their edges into
      // removed nodes; files that missed a name it now defines, through their name dependencies.
      // Go package scope is not name-tracked, so a changed Go file re-links its package.
      if (namesChanged.length && input.language === 'go') for (const f of this.filesInDir(dirOf(input.path))) affected.add(f);
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
    // Member lookups walk other classes' parents: when a class's parents change, files that walked
    // through it re-link too (a second wave, until nothing more changes).
    let relinked = 0;
    const done = new Set<string>();
    let wave = targets;
    for (let round = 0; wave.length > 0 && round < 5; round++) {
      for (const p of wave) done.add(p);
      relinked += wave.length;
      const changedClasses = this.relink(wave);
      const next = new Set<string>();
      for (const label of changedClasses) for (const f of this.globalDeps.get(label) ?? []) if (!done.has(f) && this.files.has(f)) next.add(f);
      wave = [...next].sort();
    }

    if (change.git !== undefined || pathsChanged.length > 0) {
      if (change.git !== undefined) this.git = change.git;
      this.applyGit();
    }

    // Reclaim dead edge slots when they dominate, so traversal arrays stay dense.
    if (g.edgeCapacity > 4096 && g.edgeCount < g.edgeCapacity / 2) this.compact();
    else g.finalize();
    return { resolvedFiles: relinked, nodesAdded: added, nodesRemoved: before + added - g.nodeCount };
  }

  /**
   * Sets (or clears, with null) the checker edges of files and re-links them; returns how many
   * files were re-linked. Files not in the graph are ignored.
   */
  applyPrecise(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>): number {
    const paths = [...edges.keys()].filter((p) => this.files.has(p)).sort();
    if (paths.length === 0) return 0;
    for (const p of paths) this.files.get(p)!.precise = edges.get(p) ?? null;
    this.cache = new ResolveCache();
    this.relink(paths);
    if (this.graph.edgeCapacity > 4096 && this.graph.edgeCount < this.graph.edgeCapacity / 2) this.compact();
    else this.graph.finalize();
    return paths.length;
  }

  /** Language of a file in the graph. */
  languageOf(path: string): Language | undefined {
    return this.files.get(path)?.language;
  }

  /** True when a file's calls come from the checker pass. */
  isPrecise(path: string): boolean {
    return (this.files.get(path)?.precise ?? null) !== null;
  }

  /** Files whose imports resolve to `path`. */
  importersOf(path: string): readonly string[] {
    return [...(this.importers.get(path) ?? [])];
  }

  /** Re-links files (imports, then inheritance for all, then the rest); returns labels of classes whose parents changed. */
  private relink(paths: readonly string[]): Set<string> {
    const states = paths.map((p) => this.files.get(p)!);
    for (const st of states) {
      // Files whose extraction was dropped after their last link: load them back.
      if (!st.extraction) st.extraction = this.loadExtraction?.(st.path) ?? emptyExtraction(st.path, st.language);
    }
    const parentsBefore = new Map<number, string>();
    for (const st of states) for (const idx of st.symbols.values()) parentsBefore.set(idx, (this.parents.get(idx) ?? []).join(','));
    for (const st of states) this.dropOwnedEdges(st);
    // Imports first (they depend only on the file set), then inheritance (member lookup through
    // parents needs it), then everything else.
    const targetsBefore = states.map((st) => st.importTargets.join('\n'));
    for (const st of states) this.resolveImports(st);
    this.fileScopes.clear();
    this.javaPackages.clear();
    const scopes = states.map((st) => this.scopeOf(st));
    states.forEach((st, i) => linkInheritance(this, st, scopes[i]));
    const changed = new Set<string>();
    // Files that follow re-exports through a file whose imports now resolve elsewhere re-link too.
    states.forEach((st, i) => {
      if (st.importTargets.join('\n') !== targetsBefore[i]) changed.add(reexportKey(st.path));
    });
    for (const [idx, before] of parentsBefore) {
      if ((this.parents.get(idx) ?? []).join(',') !== before) changed.add(this.node(idx).label);
    }
    states.forEach((st, i) => {
      if (st.partial) {
        st.extraction = this.loadExtraction?.(st.path) ?? st.extraction;
        st.partial = false;
      }
      linkFile(this, st, scopes[i]);
      // Drop it at once: only one full extraction is alive at a time during a big build.
      if (this.loadExtraction) st.extraction = null;
    });
    return changed;
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
    if (!prev) this.paths.add(path);

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
    const typeFacts = typeFactsOf(extraction);
    if (prev && prev.typeFacts.signature !== typeFacts.signature) {
      // Receiver types elsewhere read these facts under the names of their owners.
      namesChanged.push(...typeFactNames(prev.typeFacts), ...typeFactNames(typeFacts), reexportKey(path));
    }
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
      if (sym.signatures) node.signatures = sym.signatures;
      // A file seen for the first time cannot have nodes yet: skip the lookup.
      const existed = prev !== undefined && g.indexOf(id) >= 0;
      const idx = g.upsertNode(node);
      symbols.set(q, idx);
      if (!existed) {
        nodesAdded++;
        namesChanged.push(sym.name);
        this.indexSymbol(idx);
      }
    }
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
      members: new Map(),
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
    state.members = new Map();
    for (const [q, idx] of symbols) {
      const dot = q.lastIndexOf('.');
      const prefix = dot < 0 ? '' : q.slice(0, dot);
      let m = state.members.get(prefix);
      if (!m) state.members.set(prefix, (m = new Map()));
      m.set(dot < 0 ? q : q.slice(dot + 1), idx);
    }
    this.files.set(path, state);
    return { state, nodesAdded, namesChanged };
  }

  private dropOwnedEdges(st: FileState): void {
    for (const e of st.ownedEdges) this.graph.removeEdge(e);
    st.ownedEdges = [];
    for (const name of st.globalNames) removeFrom(this.globalDeps, name, st.path);
    st.globalNames = [];
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
      if (imp.unresolved || imp.partial) for (const stem of specifierStems(imp.specifier)) stems.add(stem);
    }
    st.importTargets = [...targets];
    for (const t of targets) addTo(this.importers, t, st.path);
    st.missStems = [...stems].filter(Boolean);
    for (const s of st.missStems) addTo(this.missStems, s, st.path);
  }

  private scopeOf(st: FileState): FileScope {
    const dir = dirOf(st.path);
    const siblings = st.language === 'java' ? this.javaPackageFiles(dir) : this.filesInDir(dir);
    return buildFileScope(st.path, st.language, st.imports, siblings);
  }

  /** Java: a package spans every source root (`src/main/java/a/b` and `src/test/java/a/b`). */
  private javaPackageFiles(dir: string): readonly string[] {
    const cut = `/${dir}`.lastIndexOf('/java/');
    if (cut < 0) return this.filesInDir(dir);
    const pkg = `/${dir}`.slice(cut + 5);
    let files = this.javaPackages.get(pkg);
    if (!files) {
      files = [];
      for (const d of this.directories()) if (`/${d}`.endsWith(pkg) && `/${d}`.slice(0, -pkg.length).endsWith('/java')) files.push(...this.filesInDir(d));
      this.javaPackages.set(pkg, files);
    }
    return files;
  }

  // --- LinkContext ----------------------------------------------------------------------------
  /** State of a file, for linking. */
  file(path: string): LinkedFile | undefined {
    return this.files.get(path);
  }
  /** Node index of a directory's module node, or -1. */
  moduleNode(dir: string): number {
    return this.modules.get(dir)?.node ?? -1;
  }
  /** Records a resolved parent of a class-like node. */
  addParent(child: number, parent: number): void {
    let p = this.parents.get(child);
    if (!p) this.parents.set(child, (p = []));
    if (!p.includes(parent)) p.push(parent);
  }
  /** Records the names a file's resolution depended on. */
  noteDependencies(file: LinkedFile, names: Dependencies): void {
    const st = file as FileState;
    for (const name of names) {
      // The shared index doubles as the per-file dedupe (an array per file is lighter than a Set).
      let files = this.globalDeps.get(name);
      if (!files) this.globalDeps.set(name, (files = new Set()));
      if (files.has(st.path)) continue;
      files.add(st.path);
      st.globalNames.push(name);
    }
  }

  /** Records a stem whose appearance may resolve something in the file. */
  noteMiss(file: LinkedFile, stem: string): void {
    const st = file as FileState;
    if (!stem || st.missStems.includes(stem)) return;
    st.missStems.push(stem);
    addTo(this.missStems, stem, st.path);
  }

  /** Directory nodes for every directory holding files (and their ancestors), with containment. */
  private updateModules(pathsChanged: readonly string[]): void {
    const g = this.graph;
    const needed = (dir: string): boolean => {
      if (this.paths.hasDir(dir)) return true;
      const prefix = dir === '' ? '' : `${dir}/`;
      for (const d of this.modules.keys()) if (d !== dir && d.startsWith(prefix) && this.paths.hasDir(d)) return true;
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
