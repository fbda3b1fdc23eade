/**
 * The federated view: several repositories' graphs served as one engine, so the graph verbs
 * (seek, impact, why, activate, …) answer across repositories. Every node of member `<repo>` is
 * read in place as id `<repo>::<id>` and path `<repo>::<path>` (federated-composite.ts), every
 * member edge kept, and the cross-repository links (manifest dependencies, imports of a sibling
 * package, calls into it) become real edges of the composite graph.
 *
 * Nothing is invented here: the members are real engines (each ingested from its own root and
 * kept in its own store), the composite is rebuilt (in slices that leave the event loop free)
 * whenever a member's graph changes, and the links are recomputed then. File access goes to the
 * member that owns the path, through that member's own path checks: `lib::src/a.ts` is read by
 * the `lib` engine, which refuses `..`, absolute paths and symlink escapes out of its root; content
 * search and semantic passages run over every member the same way, paths coming back namespaced.
 * What has no meaning across repositories (ingest, checkpoints, git history) is refused with a
 * hint, never answered from one member alone.
 */
import { join } from 'node:path';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { CodeGraphEngine, type FileContent, type FreshnessReport, type NodeMatch, type OpenSummary, type Stamped } from './engine/engine.ts';
import { EngineError, EngineErrorCodes } from './engine/errors.ts';
import type { FileExtraction } from './engine/extraction.ts';
import { CodeGraph, type GraphNode, type NodeKind } from './engine/graph.ts';
import type { IngestSummary } from './engine/ingest.ts';
import { LexicalIndex, type SeekHit, type SeekOptions } from './engine/lexical-index.ts';
import type { LookupAids } from './engine/node-lookup.ts';
import type { SearchOptions, SearchResult } from './engine/content-search.ts';
import { rankPassages, type Passage, type PassageOptions } from './engine/semantic-search.ts';
import { PageRankCache, type PageRankResult } from './engine/stats.ts';
import { afterBackgroundWork } from './engine/steps.ts';
import type { WorkspacePath } from './engine/workspace.ts';
import { BUILD_SLICE_MS, buildComposite } from './federated-view-build.ts';
import { CompositeGraph, type GivenAway } from './federated-composite.ts';
import { memberOfPath, ownsPath, splitMember, wholeMemberOf, type MemberPath } from './federated-view-paths.ts';
import { NAMESPACE_SEPARATOR, type FederationLink, type FederationMember, type FederationSpec } from './federated-view-names.ts';
import { searchMembers, type SearchTarget } from './federated-view-search.ts';

export { BUILD_SLICE_MS } from './federated-view-build.ts';
export { NAMESPACE_SEPARATOR, fileIdOf, namespaceOf, type FederationLink, type FederationMember, type FederationSpec } from './federated-view-names.ts';

function unsupported(what: string): never {
  throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `${what} is not available on the federated view`, {
    hint: 'switch this agent back to the workspace graph: federation_view({"agent_id":"…","view":"workspace"}), then retry',
  });
}

/** The composite engine. Construct, then `ensureFresh()` (or `open()`) builds it. */
export class FederatedEngine extends CodeGraphEngine {
  private spec: FederationSpec;
  private composite = new CodeGraph();
  private readonly index = new LexicalIndex((path) => this.textOf(path));
  private readonly rankCache = new PageRankCache();
  private builtKey = '';
  private builtVersion = 0;
  private building: Promise<void> | null = null;
  private linkCount = { depends_on: 0, imports: 0, calls: 0, inherits: 0, references: 0 };

  constructor(
    private readonly workspace: CodeGraphEngine,
    spec: FederationSpec,
    storeDir: string,
  ) {
    // The base engine is never opened: a read-only engine on a store folder nothing creates.
    super({ root: workspace.root, storeDir: join(storeDir, 'federation', '.view'), readOnly: true, typeCheck: false, gitMaxCommits: 0, parseWorkers: 0 });
    this.spec = spec;
  }

  /** The members, in the order given. */
  get members(): readonly FederationMember[] {
    return this.spec.members;
  }

  /** Cross-repository edges of the current composite, by relation. */
  get links(): Readonly<Record<FederationLink['relation'], number>> {
    return this.linkCount;
  }

  /** Each member's nodes in the view, and the files and nodes of its graph under members nested in it (theirs). */
  memberCounts(): { name: string; nodes: number; nested: GivenAway[] }[] {
    return this.composite instanceof CompositeGraph ? this.composite.memberCounts() : this.spec.members.map((m) => ({ name: m.name, nodes: 0, nested: [] }));
  }

  /** Replaces the members (a new federation); the next freshness check rebuilds. */
  redefine(spec: FederationSpec): void {
    this.spec = spec;
    this.builtKey = '';
  }

  // --- lifecycle -------------------------------------------------------------------------------

  override async open(): Promise<OpenSummary> {
    const t0 = performance.now();
    await this.ensureFresh();
    return { generation: this.builtVersion, files: this.filePaths().length, nodes: this.composite.nodeCount, edges: this.composite.edgeCount, loaded: this.composite.nodeCount > 0, elapsedMs: performance.now() - t0 };
  }

  override storeExists(): boolean {
    return this.workspace.storeExists();
  }

  override storeCreated(): boolean {
    return this.workspace.storeCreated();
  }

  override async ingest(): Promise<IngestSummary> {
    return unsupported('ingest');
  }

  /** Refreshes every member (the workspace's own watcher-driven re-ingest included) and rebuilds the composite when one changed. */
  override async ensureFresh(): Promise<FreshnessReport> {
    const reingested: string[] = [];
    let reloaded = false;
    for (const m of this.spec.members) {
      if (!m.engine.storeExists()) continue;
      const r = await m.engine.ensureFresh();
      reloaded ||= r.reloaded;
      reingested.push(...r.reingested.map((p) => `${m.name}${NAMESPACE_SEPARATOR}${p}`));
    }
    const key = this.spec.members.map((m) => `${m.name}:${m.engine.generation}:${m.engine.graph.version}`).join('|');
    if (key !== this.builtKey) {
      this.building ??= this.rebuild(key).finally(() => (this.building = null));
      await this.building;
    }
    return { generation: this.builtVersion, reloaded, reingested };
  }

  override async watch(): Promise<void> {
    // The workspace is watched by the graph plugin; sibling repositories are refreshed from their stores.
  }

  override async unwatch(): Promise<void> {}

  /** Closes the sibling engines (the workspace's belongs to the graph service). */
  override async close(): Promise<void> {
    for (const m of this.spec.members) if (!m.own) await m.engine.close();
  }

  private async rebuild(key: string): Promise<void> {
    const links = await this.spec.link(this.spec.members);
    const { graph, counts } = await buildComposite(this.spec.members, links);
    this.composite = graph;
    this.linkCount = counts;
    this.builtKey = key;
    this.builtVersion++;
  }

  // --- graph access ----------------------------------------------------------------------------

  override get graph(): CodeGraph {
    return this.composite;
  }

  override get generation(): number {
    return this.builtVersion;
  }

  override preciseStatus() {
    return this.workspace.preciseStatus();
  }

  override async preciseIdle() {
    return this.workspace.preciseIdle();
  }

  /** `<repo>::text` is looked up by that member (paths, `path:line`, names) and mapped back; other text over the whole view. */
  override findNodes(text: string, options: { limit?: number; kinds?: readonly NodeKind[] } = {}): NodeMatch[] {
    const split = this.lookedUpByMember(text);
    if (split) return this.fromMember(split.member, split.member.engine.findNodes(split.rest, options));
    return super.findNodes(text, options);
  }

  /** `findNodes` in slices, the same way: a member's own paced lookup for `<repo>::text`, else over the whole view. */
  override async findNodesPaced(text: string, options: { limit?: number; kinds?: readonly NodeKind[] } = {}, sliceMs = 8): Promise<NodeMatch[]> {
    const split = this.lookedUpByMember(text);
    if (split) return this.fromMember(split.member, await split.member.engine.findNodesPaced(split.rest, options, sliceMs));
    return super.findNodesPaced(text, options, sliceMs);
  }

  /** `<repo>::text` that is no composite id: the member to look it up in, and the text there. */
  private lookedUpByMember(text: string) {
    const split = this.split(text.trim());
    return split && !this.composite.get(text.trim()) ? split : null;
  }

  /** A member's matches as the view's nodes (namespaced ids). */
  private fromMember(member: { name: string }, matches: NodeMatch[]): NodeMatch[] {
    return matches.map((m) => ({ ...m, node: this.composite.get(`${member.name}${NAMESPACE_SEPARATOR}${m.node.id}`) })).filter((m): m is NodeMatch => m.node !== null);
  }

  protected override lookupAids(): LookupAids {
    return { pagerank: () => this.pagerank().scores, lexical: this.index };
  }

  override parseErrorFiles(limit?: number) {
    return this.workspace.parseErrorFiles(limit);
  }

  override unresolvedImports() {
    return this.spec.members.flatMap((m) => m.engine.unresolvedImports().flatMap((u) => (ownsPath(m, u.from) ? [{ ...u, from: `${m.name}${NAMESPACE_SEPARATOR}${u.from}` }] : [])));
  }

  override pagerank(): PageRankResult {
    return this.rankCache.get(this.composite);
  }

  override gitHistory(): never {
    return unsupported('git history');
  }

  override filePaths(): string[] {
    return this.spec.members.flatMap((m) => m.engine.filePaths().flatMap((p) => (ownsPath(m, p) ? [`${m.name}${NAMESPACE_SEPARATOR}${p}`] : []))).sort();
  }

  // --- queries ---------------------------------------------------------------------------------

  override seek(query: string, options: SeekOptions = {}): Stamped & { results: SeekHit[] } {
    const pr = options.graphRerank === false ? null : this.pagerank().scores;
    return { generation: this.builtVersion, stale: false, results: this.index.query(this.composite, query, pr, options) };
  }

  /** Passages: the composite's seek candidates, each line read by the member that owns the file. */
  override searchPassages(query: string, options: SeekOptions & PassageOptions = {}): Stamped & { results: Passage[] } {
    const topK = options.topK ?? 20;
    const candidates = this.seek(query, { ...options, topK: Math.max(30, topK * 3) }).results;
    const texts = new Map<string, string | null>();
    const textOf = (path: string) => {
      if (!texts.has(path)) texts.set(path, this.textOf(path));
      return texts.get(path)!;
    };
    return { generation: this.builtVersion, stale: false, results: rankPassages(query, candidates, textOf, (t) => this.index.idf(t), { topK, contextLines: options.contextLines }) };
  }

  /**
   * Content search over every member (or the one a `<repo>::` scope names), each member's files read
   * by its own engine; paths come back as `<repo>::path`. One time budget for the whole scan.
   */
  override *searchSteps(query: string, options: SearchOptions = {}): Generator<void, Stamped & SearchResult> {
    return { generation: this.builtVersion, stale: false, ...(yield* searchMembers(this.searchTargets(options.scope), query, options)) };
  }

  /** The members a search scope covers: `<repo>::dir` (checked by that member's path guard), `<repo>` alone, a plain path (the workspace's), or all. */
  private searchTargets(scope: string | undefined): SearchTarget[] {
    const text = scope?.trim() ?? '';
    if (text === '' || text === '.') return this.spec.members.map((member) => ({ member, scope: undefined }));
    const whole = this.spec.members.find((m) => m.name === text || `${m.name}${NAMESPACE_SEPARATOR}` === text);
    if (whole) return [{ member: whole, scope: undefined }];
    const { member, rest } = this.memberOf(text);
    if (rest === '' || rest === '.') return [{ member, scope: undefined }];
    return [{ member, scope: member.engine.resolvePath(rest).relative }];
  }

  override warmSearchCache(): number {
    return 0;
  }

  override async prepareSeek(): Promise<void> {
    await this.index.ensureAsync(this.composite, BUILD_SLICE_MS);
    await this.rankCache.getAsync(this.composite, BUILD_SLICE_MS);
    // The query that follows starts in a turn of its own, not after the last slice of the build.
    await afterBackgroundWork();
  }

  override warmIndexes(): Promise<void> {
    return this.prepareSeek();
  }

  /**
   * `<repo>::path` through that member's path checks; a plain path is the workspace's, except a bare
   * repository name the workspace has no file or folder for: that repository whole (`<repo>::`).
   */
  override resolvePath(userPath: string): WorkspacePath {
    const whole = wholeMemberOf(this.spec.members, userPath);
    if (whole) return { absolute: whole.engine.resolvePath('.').absolute, relative: `${whole.name}${NAMESPACE_SEPARATOR}` };
    const { member, rest } = this.memberOf(userPath);
    const p = member.engine.resolvePath(rest);
    return { absolute: p.absolute, relative: `${member.name}${NAMESPACE_SEPARATOR}${p.relative}` };
  }

  override readFile(userPath: string): FileContent {
    const { member, rest } = this.memberOf(userPath);
    try {
      const f = member.engine.readFile(rest);
      return { ...f, path: `${member.name}${NAMESPACE_SEPARATOR}${f.path}` };
    } catch (error) {
      // The member's hint names its own paths; the view's take the `<repo>::` prefix.
      if (!(error instanceof EngineError) || error.code !== EngineErrorCodes.PATH_NOT_FOUND) throw error;
      throw new EngineError(error.code, error.message, this.missingFileHint(userPath));
    }
  }

  /** The member's files near the path's rest, as `<repo>::path`. */
  override nearFilePaths(userPath: string, limit = 3): string[] {
    const { member, rest } = this.memberOf(userPath);
    return member.engine.nearFilePaths(rest, limit).map((path) => `${member.name}${NAMESPACE_SEPARATOR}${path}`);
  }

  override fileExtraction(path: string): FileExtraction | null {
    const split = this.split(path);
    return split ? split.member.engine.fileExtraction(split.rest) : null;
  }

  override fileExtractionKey(path: string): string | null {
    const split = this.split(path);
    return split ? split.member.engine.fileExtractionKey(split.rest) : null;
  }

  // --- persistence: the members' stores are written by their own ingests -----------------------

  override save(): never {
    return unsupported('persist');
  }

  override checkpoint(): never {
    return unsupported('checkpoints');
  }

  override loadCheckpoint(): never {
    return unsupported('checkpoints');
  }

  override checkpointFiles(): never {
    return unsupported('checkpoints');
  }

  override deleteCheckpoint(): never {
    return unsupported('checkpoints');
  }

  override storedFiles(): never {
    return unsupported('stored file rows');
  }

  override storedExtraction(): never {
    return unsupported('stored extractions');
  }

  override status() {
    return { ...this.workspace.status(), loadedGeneration: this.builtVersion, nodes: this.composite.nodeCount, edges: this.composite.edgeCount, stale: false, lexical: this.index.stats() };
  }

  /** The workspace's store: per-agent memory lives there, whatever graph an agent looks at. */
  override get memory() {
    return this.workspace.memory;
  }

  // --- helpers ---------------------------------------------------------------------------------

  private split(text: string): MemberPath | null {
    return splitMember(this.spec.members, text);
  }

  private memberOf(userPath: string): MemberPath {
    return memberOfPath(this.spec.members, userPath);
  }

  /** A file's text for the seek index (signatures, bodies), read by the member that owns it. */
  private textOf(path: string): string | null {
    const split = this.split(path);
    if (!split) return null;
    try {
      return split.member.engine.readFile(split.rest).content;
    } catch {
      return null;
    }
  }
}

export type { GraphNode };
