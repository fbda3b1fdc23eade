/**
 * What queries read of a loaded graph besides its nodes and edges: files, their language, parse
 * errors and checker coverage, unresolved imports, git facts, the resolver config. The builder
 * answers it from its per-file state; a graph loaded from a snapshot answers it from the snapshot's
 * file table (SnapshotView), so a process that only answers queries never builds the builder's
 * linking state (owned edges, name dependents, parents, module tree, type facts).
 */
import type { Language } from './extraction.ts';
import type { GitFacts, UnresolvedImport } from './graph-change.ts';
import { RELATION_CODE, fileNodeId, type CodeGraph } from './graph.ts';
import type { SnapshotFile } from './graph-snapshot.ts';
import type { ParseErrorFile } from './parse-report.ts';
import type { ResolverConfig } from './resolve.ts';

/** The read side of a loaded graph (GraphBuilder implements it; so does SnapshotView). */
export interface GraphReadView {
  readonly graph: CodeGraph;
  /** Paths of all files in the graph. */
  filePaths(): IterableIterator<string>;
  /** True when a file with this path is in the graph. */
  has(path: string): boolean;
  /** Language of a file in the graph. */
  languageOf(path: string): Language | undefined;
  /** True when a file's calls come from the checker pass. */
  isPrecise(path: string): boolean;
  /** Parse errors the parser reported for a file (0 when clean or unknown). */
  parseErrorsOf(path: string): number;
  /** Every file whose parse had errors. */
  parseErrorFiles(): IterableIterator<ParseErrorFile>;
  /** Every import that did not resolve to a workspace file. */
  unresolvedImports(): UnresolvedImport[];
  /** Files whose imports resolve to `path`. */
  importersOf(path: string): readonly string[];
  /** Current git facts, if any. */
  readonly gitFacts: GitFacts | null;
  /** Current resolver settings. */
  readonly resolverConfig: ResolverConfig;
}

/** The read side of a graph loaded from a snapshot. */
export class SnapshotView implements GraphReadView {
  readonly graph: CodeGraph;
  private readonly files: Map<string, SnapshotFile>;
  private readonly unresolved: UnresolvedImport[];
  private readonly readGit: () => GitFacts | null;
  private readonly readConfig: () => ResolverConfig;
  private git: { facts: GitFacts | null } | null = null;
  private config: ResolverConfig | null = null;

  /** Git facts and the resolver config are read from the store on first use (few queries need them). */
  constructor(graph: CodeGraph, files: readonly SnapshotFile[], unresolved: UnresolvedImport[], readGit: () => GitFacts | null, readConfig: () => ResolverConfig) {
    this.graph = graph;
    this.files = new Map(files.map((f) => [f.path, f]));
    this.unresolved = unresolved;
    this.readGit = readGit;
    this.readConfig = readConfig;
  }

  filePaths(): IterableIterator<string> {
    return this.files.keys();
  }
  has(path: string): boolean {
    return this.files.has(path);
  }
  languageOf(path: string): Language | undefined {
    return this.files.get(path)?.language;
  }
  isPrecise(path: string): boolean {
    return this.files.get(path)?.precise ?? false;
  }
  parseErrorsOf(path: string): number {
    return this.files.get(path)?.parseErrors ?? 0;
  }
  *parseErrorFiles(): IterableIterator<ParseErrorFile> {
    for (const f of this.files.values()) if (f.parseErrors > 0) yield { path: f.path, errors: f.parseErrors, firstLine: f.parseErrorLine };
  }
  unresolvedImports(): UnresolvedImport[] {
    return this.unresolved.map((u) => ({ ...u }));
  }
  /** From the graph's file → file `imports` edges (the builder keeps the same relation per resolved import). */
  importersOf(path: string): readonly string[] {
    const g = this.graph;
    const i = g.indexOf(fileNodeId(path));
    if (i < 0) return [];
    const out = new Set<string>();
    g.forEachIn(i, (source, _w, relation) => {
      const n = g.node(source);
      if (relation === RELATION_CODE.imports && n?.kind === 'file' && n.path !== path) out.add(n.path);
    });
    return [...out];
  }
  get gitFacts(): GitFacts | null {
    this.git ??= { facts: this.readGit() };
    return this.git.facts;
  }
  get resolverConfig(): ResolverConfig {
    this.config ??= this.readConfig();
    return this.config;
  }

  /** The snapshot's files (path, extraction key, language…). */
  fileTable(): IterableIterator<SnapshotFile> {
    return this.files.values();
  }
}
