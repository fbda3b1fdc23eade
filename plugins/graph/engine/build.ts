/**
 * The graph builder: turns file extractions into nodes and edges, and patches the graph when files
 * change. Every edge is owned by the file whose extraction produced it (or by the git history, or by
 * the directory tree), so a changed file drops and rebuilds exactly its own edges; other files are
 * re-linked only when their answers could change: they had an edge into a removed node, depended on
 * a name a changed file (un)defines, walked a class whose parents changed, or had an import or link
 * that a new file may satisfy. A full build is the same code path with every file affected.
 */
import { BuilderTables } from './build-tables.ts';
import type { FileExtraction, Language } from './extraction.ts';
import { FileDependents } from './file-dependents.ts';
import { pathStems } from './file-index.ts';
import { emptyExtraction, linkOnlyExtraction, type FileState } from './file-state.ts';
import { upsertFileNodes, type FileNodeContext } from './file-symbol-nodes.ts';
import { applyGitFacts } from './git-edges.ts';
import type { ApplyReport, FileInput, GraphChange } from './graph-change.ts';
import { linkFile, linkInheritance, type LinkContext, type LinkedFile } from './link-file.ts';
import { ModuleTree } from './module-tree.ts';
import { ResolveCache, dirOf, resolveImport, type PathIndex } from './resolve.ts';
import { reexportKey, type Dependencies, type FileScope } from './resolve-names.ts';
import { runSteps, runStepsSliced } from './steps.ts';
import type { PreciseEdge } from './ts-program/protocol.ts';

// The builder's input and output types live in graph-change.ts; re-exported so importers of the builder keep one import.
export type { ApplyReport, FileInput, GitFacts, GraphBuilderOptions, GraphChange, UnresolvedImport } from './graph-change.ts';

/** What `GraphBuilder.stage` did ahead of the apply that links the files. */
interface StagedUpserts {
  /** Live nodes before the first staged file. */
  before: number;
  /** True when the builder was empty before the first staged file (the apply links every file). */
  firstBuild: boolean;
  inputs: Set<FileInput>;
  added: number;
  affected: Set<string>;
  changedNames: Set<string>;
  pathsChanged: string[];
}

/** Builds and patches a CodeGraph from file extractions. */
export class GraphBuilder extends BuilderTables implements LinkContext, PathIndex {
  private readonly dependents = new FileDependents();
  private readonly modules = new ModuleTree();
  private gitEdges: number[] = [];
  private cache = new ResolveCache();
  /** Files whose nodes `stage` added ahead of the apply that links them. */
  private staged: StagedUpserts | null = null;
  /** Extraction keys of this apply's inputs (their stored rows may not be current yet). */
  private readonly keys = new Map<string, string>();
  /** What the current apply's linking waits for (GraphChange.linkAfter), until it has waited. */
  private linkGate: Promise<unknown> | null = null;
  /** The current apply's loader of partial inputs (GraphChange.loadExtraction), if it has one. */
  private linkLoader: ((path: string, key?: string) => FileExtraction | null) | null = null;

  // --- mutation -------------------------------------------------------------------------------

  /** Applies a batch of file changes, re-resolves what they can affect, and finalizes the graph. */
  apply(change: GraphChange): ApplyReport {
    return runSteps(this.applySteps(change));
  }

  /**
   * `apply` in slices of at most `sliceMs` of main-thread time, yielding a macrotask between slices
   * so timers and I/O run during a big build. Another caller must not read or patch this builder
   * until it resolves (an ingest builds a fresh builder, or patches under the engine's queue).
   */
  applyAsync(change: GraphChange, sliceMs = 20): Promise<ApplyReport> {
    return runStepsSliced(this.applySteps(change), sliceMs);
  }

  /**
   * Adds the nodes of files now and leaves their linking to the next `apply`/`applyAsync`, which
   * must list the same inputs (the same objects) in its `upsert` and remove nothing. A full ingest
   * stages each file as the parse delivers it, so only the linking is left once the parse ends.
   */
  stage(inputs: readonly FileInput[]): void {
    const st = (this.staged ??= { before: this.graph.nodeCount, firstBuild: this.files.size === 0, inputs: new Set(), added: 0, affected: new Set(), changedNames: new Set(), pathsChanged: [] });
    for (const input of inputs) {
      if (st.inputs.has(input)) continue;
      st.inputs.add(input);
      st.added += this.upsertOne(input, st.affected, st.changedNames, st.pathsChanged);
      if (input.partial) {
        // Its links need only imports and inherits until the full extraction is loaded back.
        const slim = linkOnlyExtraction(input.extraction);
        this.files.get(input.path)!.extraction = slim;
        input.extraction = slim;
      }
    }
  }

  /** The work of `apply`, yielding after each file of each pass (the points where a slice may end). */
  private *applySteps(change: GraphChange): Generator<void | Promise<unknown>, ApplyReport> {
    const g = this.graph;
    const staged = this.staged;
    this.staged = null;
    if (staged && change.remove.length > 0) throw new Error('GraphBuilder: a change after stage() must not remove files');
    const before = staged?.before ?? g.nodeCount;
    let added = staged?.added ?? 0;
    const affected = staged?.affected ?? new Set<string>();
    const changedNames = staged?.changedNames ?? new Set<string>();
    const pathsChanged: string[] = staged?.pathsChanged ?? [];
    // The first build links every file; computing what it "affects" would only cost time.
    let allAffected = staged?.firstBuild ?? this.files.size === 0;
    this.cache = new ResolveCache();
    this.keys.clear();

    if (change.config && JSON.stringify(change.config) !== JSON.stringify(this.config)) {
      this.config = change.config;
      allAffected = true;
    }

    for (const path of change.remove) {
      const st = this.files.get(path);
      if (!st) continue;
      pathsChanged.push(path);
      for (const o of this.dependents.importersOf(path)) affected.add(o);
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
      yield;
    }

    for (const input of change.upsert) {
      if (!staged?.inputs.has(input)) added += this.upsertOne(input, affected, changedNames, pathsChanged);
      if (change.release) (input as { extraction: FileInput['extraction'] | null }).extraction = null;
      if (input.key !== undefined) this.keys.set(input.path, input.key);
      yield;
    }

    if (!allAffected) {
      for (const path of pathsChanged) {
        for (const stem of pathStems(path)) for (const f of this.dependents.missing(stem)) affected.add(f);
        // A package (Go) or wildcard (Java) import of the directory now names one file more or less.
        for (const sibling of this.filesInDir(dirOf(path))) for (const o of this.dependents.importersOf(sibling)) affected.add(o);
      }
      for (const name of changedNames) for (const f of this.dependents.dependentsOfName(name)) affected.add(f);
    }

    const targets = allAffected ? [...this.files.keys()] : [...affected].filter((p) => this.files.has(p));
    targets.sort();
    this.modules.update(g, this.paths, pathsChanged, (p) => this.files.has(p));
    // Member lookups walk other classes' parents: when a class's parents change, files that walked
    // through it re-link too (a second wave, until nothing more changes).
    let relinked = 0;
    const done = new Set<string>();
    let wave = targets;
    this.linkGate = change.linkAfter ?? null;
    this.linkLoader = change.loadExtraction ?? null;
    for (let round = 0; wave.length > 0 && round < 5; round++) {
      for (const p of wave) done.add(p);
      relinked += wave.length;
      // Once every file is linked there is no next wave: what changed need not be tracked.
      const changedClasses = yield* this.relinkSteps(wave, done.size < this.files.size);
      const next = new Set<string>();
      for (const label of changedClasses) for (const f of this.dependents.dependentsOfName(label)) if (!done.has(f) && this.files.has(f)) next.add(f);
      wave = [...next].sort();
    }

    this.keys.clear();
    this.linkGate = null;
    this.linkLoader = null;
    // The link's scopes (one per linked file) are a cache: queries re-make the few they read.
    this.fileScopes.clear();
    if (change.git !== undefined || pathsChanged.length > 0) {
      if (change.git !== undefined) this.git = change.git;
      this.gitEdges = applyGitFacts(this.graph, this.files, this.git, this.gitEdges);
    }

    // Reclaim dead edge slots when they dominate, so traversal arrays stay dense.
    if (g.edgeCapacity > 4096 && g.edgeCount < g.edgeCapacity / 2) this.compact();
    else yield* g.finalizeSteps();
    return { resolvedFiles: relinked, nodesAdded: added, nodesRemoved: before + added - g.nodeCount };
  }

  /** Creates or updates one file's nodes and state, noting what it affects; returns the nodes added. */
  private upsertOne(input: FileInput, affected: Set<string>, changedNames: Set<string>, pathsChanged: string[]): number {
    const prev = this.files.get(input.path);
    if (!prev) pathsChanged.push(input.path);
    const { state, nodesAdded, namesChanged } = upsertFileNodes(this.fileNodeContext(), input, prev, affected);
    this.files.set(input.path, state);
    for (const n of namesChanged) changedNames.add(n);
    // Files that resolved a name into this one and lost it are found through their edges into
    // removed nodes; files that missed a name it now defines, through their name dependencies.
    // Go package scope is not name-tracked, so a changed Go file re-links its package.
    if (namesChanged.length && input.language === 'go') for (const f of this.filesInDir(dirOf(input.path))) affected.add(f);
    affected.add(state.path);
    return nodesAdded;
  }

  /**
   * Sets (or clears, with null) the checker edges of files and re-links them; returns how many
   * files were re-linked. Files not in the graph are ignored.
   */
  applyPrecise(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>): number {
    return runSteps(this.applyPreciseSteps(edges));
  }

  /**
   * `applyPrecise` in slices of at most `sliceMs` of main-thread time, as `applyAsync`: a checker
   * pass's results relink every checked file (one piece held the loop ~300 ms on m1nd's own 1,000
   * files). Readers see the graph as before until the sliced finalize installs the new adjacency;
   * the caller keeps other patches of this builder out until it resolves (the engine's queue).
   */
  applyPreciseAsync(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>, sliceMs: number): Promise<number> {
    return runStepsSliced(this.applyPreciseSteps(edges), sliceMs);
  }

  private *applyPreciseSteps(edges: ReadonlyMap<string, readonly PreciseEdge[] | null>): Generator<void | Promise<unknown>, number> {
    const paths = [...edges.keys()].filter((p) => this.files.has(p)).sort();
    if (paths.length === 0) return 0;
    for (const p of paths) this.files.get(p)!.precise = edges.get(p) ?? null;
    this.cache = new ResolveCache();
    yield* this.relinkSteps(paths);
    if (this.graph.edgeCapacity > 4096 && this.graph.edgeCount < this.graph.edgeCapacity / 2) this.compact();
    else yield* this.graph.finalizeSteps();
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
    return [...this.dependents.importersOf(path)];
  }

  /**
   * Re-links files (imports, then inheritance for all, then the rest), yielding after each file of
   * each pass; returns labels of classes whose parents changed. With `track` false the classes
   * whose parents changed are not collected (a wave that links every file has no next wave; on the
   * python3 prefix the parents' and import targets' strings before the link were ~270K entries).
   */
  private *relinkSteps(paths: readonly string[], track = true): Generator<void | Promise<unknown>, Set<string>> {
    const states = paths.map((p) => this.files.get(p)!);
    for (const st of states) {
      // Files whose extraction was dropped after their last link: load them back.
      if (!st.extraction) {
        st.extraction = this.loadExtraction?.(st.path) ?? emptyExtraction(st.path, st.language);
        yield;
      }
    }
    const parentsBefore = new Map<number, string>();
    if (track) for (const st of states) for (const idx of st.symbols.values()) parentsBefore.set(idx, (this.parents.get(idx) ?? []).join(','));
    // Read before the drop below forgets them (read after, every file with imports looked changed,
    // and each one-file edit re-linked its importers' importers in up to five waves).
    const targetsBefore = track ? states.map((st) => st.importTargets.join('\n')) : [];
    for (const st of states) {
      this.dropOwnedEdges(st);
      yield;
    }
    // Imports first (they depend only on the file set), then inheritance (member lookup through
    // parents needs it), then everything else.
    for (const st of states) {
      this.resolveImports(st);
      yield;
    }
    this.fileScopes.clear();
    this.javaPackages.clear();
    const scopes: FileScope[] = [];
    for (const st of states) {
      // Shared with the tables' scope cache, which other files' receiver lookups fill during the link.
      const scope = this.scopeOf(st);
      this.fileScopes.set(st.path, scope);
      scopes.push(scope);
      yield;
    }
    for (let i = 0; i < states.length; i++) {
      linkInheritance(this, states[i], scopes[i]);
      yield;
    }
    const changed = new Set<string>();
    // Files that follow re-exports through a file whose imports now resolve elsewhere re-link too.
    if (track) {
      states.forEach((st, i) => {
        if (st.importTargets.join('\n') !== targetsBefore[i]) changed.add(reexportKey(st.path));
      });
    }
    for (const [idx, before] of parentsBefore) {
      if ((this.parents.get(idx) ?? []).join(',') !== before) changed.add(this.node(idx).label);
    }
    if (this.linkGate) {
      // Partial inputs' full extractions are loaded from the store below: wait until it has them.
      const gate = this.linkGate;
      this.linkGate = null;
      yield gate;
    }
    for (let i = 0; i < states.length; i++) {
      const st = states[i];
      if (st.partial) {
        const load = this.linkLoader ?? this.loadExtraction;
        st.extraction = load?.(st.path, this.keys.get(st.path)) ?? st.extraction;
        st.partial = false;
      }
      linkFile(this, st, scopes[i]);
      // Drop it at once: only one full extraction is alive at a time during a big build.
      if (this.loadExtraction) st.extraction = null;
      yield;
    }
    return changed;
  }

  private compact(): void {
    const remap = this.graph.compactEdges();
    const fix = (ids: number[]): number[] => ids.map((e) => remap[e]).filter((e) => e >= 0);
    for (const st of this.files.values()) st.ownedEdges = fix(st.ownedEdges);
    this.gitEdges = fix(this.gitEdges);
    this.modules.remapEdges(remap);
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
    this.byName.add(this.node(idx), idx);
  }

  private unindexSymbol(idx: number): void {
    const n = this.graph.node(idx);
    if (n && this.byName.remove(n, idx)) this.parents.delete(idx);
  }

  /** The builder's tables as upsertFileNodes needs them (git facts as of this call). */
  private fileNodeContext(): FileNodeContext {
    return {
      graph: this.graph,
      paths: this.paths,
      git: this.git,
      indexSymbol: (idx) => this.indexSymbol(idx),
      dropSymbol: (idx, affected) => {
        this.unindexSymbol(idx);
        this.removeNodeAndNoteOwners(idx, affected);
      },
    };
  }

  private dropOwnedEdges(st: FileState): void {
    for (const e of st.ownedEdges) this.graph.removeEdge(e);
    st.ownedEdges = [];
    this.dependents.forget(st);
    for (const idx of st.symbols.values()) this.parents.delete(idx);
  }

  private resolveImports(st: FileState): void {
    st.imports = st.extraction!.imports.map((imp) => resolveImport(imp, st.path, st.language, this, this.config, this.cache));
    this.dependents.recordImports(st);
  }


  // --- LinkContext ----------------------------------------------------------------------------
  /** State of a file, for linking. */
  file(path: string): LinkedFile | undefined {
    return this.files.get(path);
  }
  /** Node index of a directory's module node, or -1. */
  moduleNode(dir: string): number {
    return this.modules.nodeOf(dir);
  }
  /** Records a resolved parent of a class-like node. */
  addParent(child: number, parent: number): void {
    const p = this.parents.get(child);
    // Made with its entry (an empty array's first push reserves 17 slots).
    if (!p) this.parents.set(child, [parent]);
    else if (!p.includes(parent)) p.push(parent);
  }
  /** Records the names a file's resolution depended on. */
  noteDependencies(file: LinkedFile, names: Dependencies): void {
    this.dependents.recordNames(file as FileState, names);
  }

  /** Records a stem whose appearance may resolve something in the file. */
  noteMiss(file: LinkedFile, stem: string): void {
    this.dependents.recordMiss(file as FileState, stem);
  }
}

