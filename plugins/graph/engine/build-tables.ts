/**
 * The graph builder's tables and their read side: files by path, symbols by name, class parents,
 * per-file scopes — what linking looks names up in and what queries read. GraphBuilder (build.ts)
 * adds the mutations.
 */
import type { ExtractedBinding, FileExtraction } from './extraction.ts';
import { FileIndex } from './file-index.ts';
import type { FileState } from './file-state.ts';
import type { GitFacts, GraphBuilderOptions, UnresolvedImport } from './graph-change.ts';
import { CodeGraph, type GraphNode } from './graph.ts';
import type { SnapshotFile } from './graph-snapshot.ts';
import { JavaPackages } from './java-packages.ts';
import type { ParseErrorFile } from './parse-report.ts';
import { buildFileScope, type FileScope } from './resolve-names.ts';
import { dirOf, emptyResolverConfig, type ResolvedImport, type ResolverConfig } from './resolve.ts';
import { SymbolNames } from './symbol-names.ts';

/** The builder's tables, read side. */
export class BuilderTables {
  readonly graph = new CodeGraph();
  protected readonly files = new Map<string, FileState>();
  protected readonly paths = new FileIndex();
  protected readonly byName = new SymbolNames();
  protected readonly parents = new Map<number, number[]>();
  protected git: GitFacts | null = null;
  protected config: ResolverConfig = emptyResolverConfig();
  protected readonly loadExtraction: ((path: string, key?: string) => FileExtraction | null) | null;
  protected readonly fileScopes = new Map<string, FileScope>();
  protected readonly javaPackages = new JavaPackages();

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
    // The symbol table keyed by qualified name answers it: a member's name has no dot of its own.
    if (name.includes('.')) return -1;
    return this.files.get(path)?.symbols.get(prefix === '' ? name : `${prefix}.${name}`) ?? -1;
  }
  /** Code symbols (not sections) with this short name. */
  named(name: string): readonly number[] {
    return this.byName.named(name);
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

  /** The type facts of a node's file and the node's qualified name in them. */
  private factsOf(index: number): { facts: FileState['typeFacts'] | undefined; q: string } {
    const n = this.node(index);
    return { facts: this.files.get(n.path)?.typeFacts, q: n.qualifiedName ?? '' };
  }
  /** What an unannotated function's result is inferred from (its return bindings and the locals they read). */
  inferredReturnOf(index: number): readonly ExtractedBinding[] | undefined {
    const { facts, q } = this.factsOf(index);
    return facts?.inferred.get(q);
  }
  /** True for a Java method declared private. */
  isPrivate(index: number): boolean {
    const { facts, q } = this.factsOf(index);
    return facts?.privates.has(q) ?? false;
  }
  /** Declared result type of a function or method node. */
  returnTypeOf(index: number): string | undefined {
    const { facts, q } = this.factsOf(index);
    return facts?.returns.get(q);
  }
  /** Declared parameter types of a Java method or constructor node. */
  paramsOf(index: number): readonly string[] | undefined {
    const { facts, q } = this.factsOf(index);
    return facts?.params.get(q);
  }
  /** True for a Python `@property` getter node. */
  isProperty(index: number): boolean {
    const { facts, q } = this.factsOf(index);
    return facts?.properties.has(q) ?? false;
  }
  /** A field a class-like node declares. */
  fieldOf(classIndex: number, name: string): { type?: string; value?: string } | undefined {
    const { facts, q } = this.factsOf(classIndex);
    return facts?.fields.get(q)?.get(name);
  }
  /** Each base a class-like node extends, as a dotted name. */
  basesOf(classIndex: number): readonly string[] {
    const { facts, q } = this.factsOf(classIndex);
    return facts?.bases.get(q) ?? [];
  }
  /** The traits/interfaces a type of a file implements, by name as written. */
  implementedBy(path: string, typeQualifiedName: string): readonly string[] {
    return this.files.get(path)?.typeFacts.implemented.get(typeQualifiedName) ?? [];
  }
  /** The type a module-level alias of a file stands for, as written. */
  aliasOf(path: string, name: string): string | undefined {
    return this.files.get(path)?.typeFacts.aliases.get(name);
  }
  /** The declared type and/or value of a module-level variable of a file. */
  globalOf(path: string, name: string): { type?: string; value?: string } | undefined {
    return this.files.get(path)?.typeFacts.globals.get(name);
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
  /** Each file's facts as a graph snapshot keeps them (`keyOf`: the extraction key the file was built from). */
  *snapshotFiles(keyOf: (path: string) => string | undefined): IterableIterator<SnapshotFile> {
    for (const st of this.files.values()) {
      yield { path: st.path, extractionKey: keyOf(st.path) ?? '', language: st.language, parseErrors: st.parseErrors, parseErrorLine: st.parseErrorLine, precise: st.precise !== null };
    }
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

  protected scopeOf(st: FileState): FileScope {
    const dir = dirOf(st.path);
    const siblings = st.language === 'java' ? this.javaPackages.filesOf(dir, this) : this.filesInDir(dir);
    return buildFileScope(st.path, st.language, st.imports, siblings);
  }
}
