/**
 * The federated view: several repositories' graphs served as one engine, so the graph verbs
 * (seek, impact, why, activate, …) answer across repositories. Every node of member `<repo>` is
 * copied with id `<repo>::<id>` and path `<repo>::<path>`, every member edge kept, and the
 * cross-repository links (manifest dependencies, imports of a sibling package, calls into it)
 * become real edges of the composite graph.
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
import { CodeGraph, DEFAULT_WEIGHTS, moduleNodeId, RELATION_CODE, type GraphNode, type NodeKind, type Relation } from './engine/graph.ts';
import type { IngestSummary } from './engine/ingest.ts';
import { LexicalIndex, type SeekHit, type SeekOptions } from './engine/lexical-index.ts';
import { findNodes } from './engine/node-lookup.ts';
import type { SearchMatch, SearchOptions, SearchResult } from './engine/content-search.ts';
import { rankPassages, type Passage, type PassageOptions } from './engine/semantic-search.ts';
import { PageRankCache, type PageRankResult } from './engine/stats.ts';
import type { WorkspacePath } from './engine/workspace.ts';

/** Separates a member's name from its ids and paths. */
export const NAMESPACE_SEPARATOR = '::';

/** One repository of the view. */
export interface FederationMember {
  name: string;
  engine: CodeGraphEngine;
  /** True for the served workspace (its engine is the graph service's, refreshed and watched there). */
  own: boolean;
}

/** A cross-repository link between namespaced ids. `depends_on` (manifest → manifest, or root module → root module when the graph has no manifest node) becomes an `imports` edge. */
export interface FederationLink {
  source: string;
  target: string;
  relation: 'depends_on' | 'imports' | 'calls';
}

/** What the view is made of: its members and how to link them (recomputed when a member changes). */
export interface FederationSpec {
  members: FederationMember[];
  link(members: readonly FederationMember[]): Promise<FederationLink[]>;
}

/** Weight of a manifest dependency edge (grouping evidence, weaker than an import of a symbol). */
const DEPENDS_ON_WEIGHT = 0.6;
/**
 * Main-thread time the view's build (copy, seek index, PageRank) takes before it yields to the event
 * loop: it is background work, so other calls wait a few milliseconds at most.
 */
export const BUILD_SLICE_MS = 4;
/** Items copied between two looks at the clock. */
const CHECK_EVERY = 64;

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Yields when the current slice has run BUILD_SLICE_MS (`due` is cheap: it reads the clock every CHECK_EVERY items). */
class Slicer {
  private started = performance.now();
  private count = 0;
  due(): boolean {
    return ++this.count % CHECK_EVERY === 0 && performance.now() - this.started >= BUILD_SLICE_MS;
  }
  async yield(): Promise<void> {
    await yieldNow();
    this.started = performance.now();
  }
}

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
  private linkCount = { depends_on: 0, imports: 0, calls: 0 };

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
    const members = this.spec.members;
    const links = await this.spec.link(members);
    const g = new CodeGraph();
    const maps: Int32Array[] = [];
    const slicer = new Slicer();
    for (const m of members) {
      const src = m.engine.graph;
      const map = new Int32Array(src.nodeCapacity).fill(-1);
      for (let i = 0; i < src.nodeCapacity; i++) {
        if (slicer.due()) await slicer.yield();
        const n = src.node(i);
        if (n) map[i] = g.upsertNode({ ...n, id: `${m.name}${NAMESPACE_SEPARATOR}${n.id}`, path: `${m.name}${NAMESPACE_SEPARATOR}${n.path}` });
      }
      maps.push(map);
    }
    for (const [k, m] of members.entries()) {
      const src = m.engine.graph;
      const map = maps[k];
      for (let e = 0; e < src.edgeCapacity; e++) {
        if (slicer.due()) await slicer.yield();
        if (!src.isEdgeAlive(e)) continue;
        const s = map[src.edgeSource[e]];
        const t = map[src.edgeTarget[e]];
        if (s >= 0 && t >= 0) g.addEdge(s, t, src.edgeRelation[e], src.edgeWeight[e]);
      }
    }
    const counts = { depends_on: 0, imports: 0, calls: 0 };
    // A manifest the graph does not parse (package.json, go.mod, …) stands for its repository: its root module.
    const endpoint = (id: string, l: FederationLink) => {
      const i = g.indexOf(id);
      const ns = namespaceOf(id);
      return i >= 0 || l.relation !== 'depends_on' || ns === null ? i : g.indexOf(`${ns}${NAMESPACE_SEPARATOR}${moduleNodeId('.')}`);
    };
    for (const l of links) {
      if (slicer.due()) await slicer.yield();
      const s = endpoint(l.source, l);
      const t = endpoint(l.target, l);
      if (s < 0 || t < 0) continue;
      const relation: Relation = l.relation === 'depends_on' ? 'imports' : l.relation;
      g.addEdge(s, t, RELATION_CODE[relation], l.relation === 'depends_on' ? DEPENDS_ON_WEIGHT : DEFAULT_WEIGHTS[relation]);
      counts[l.relation]++;
    }
    await yieldNow();
    g.finalize();
    this.composite = g;
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
    const split = this.split(text.trim());
    if (split && !this.composite.get(text.trim())) {
      return split.member.engine
        .findNodes(split.rest, options)
        .map((m) => ({ ...m, node: this.composite.get(`${split.member.name}${NAMESPACE_SEPARATOR}${m.node.id}`) }))
        .filter((m): m is NodeMatch => m.node !== null);
    }
    return findNodes(this.composite, text, options, { pagerank: () => this.pagerank().scores, lexical: this.index });
  }

  override parseErrorFiles(limit?: number) {
    return this.workspace.parseErrorFiles(limit);
  }

  override unresolvedImports() {
    return this.spec.members.flatMap((m) => m.engine.unresolvedImports().map((u) => ({ ...u, from: `${m.name}${NAMESPACE_SEPARATOR}${u.from}` })));
  }

  override pagerank(): PageRankResult {
    return this.rankCache.get(this.composite);
  }

  override gitHistory(): never {
    return unsupported('git history');
  }

  override filePaths(): string[] {
    return this.spec.members.flatMap((m) => m.engine.filePaths().map((p) => `${m.name}${NAMESPACE_SEPARATOR}${p}`)).sort();
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
  override search(query: string, options: SearchOptions = {}): Stamped & SearchResult {
    const t0 = performance.now();
    const budget = options.timeBudgetMs ?? 3000;
    const maxResults = options.maxResults ?? 50;
    const out: SearchResult = { matches: [], totalMatches: 0, filesScanned: 0, filesMatched: 0, truncated: false, elapsedMs: 0, timedOut: false };
    if (options.countOnly) out.counts = [];
    for (const { member, scope } of this.searchTargets(options.scope)) {
      if (!member.engine.storeExists()) continue;
      const left = budget - (performance.now() - t0);
      if (left <= 0) {
        out.timedOut = true;
        break;
      }
      const r = member.engine.search(query, { ...options, scope, maxResults: Math.max(0, maxResults - out.matches.length), timeBudgetMs: left });
      const ns = (path: string) => `${member.name}${NAMESPACE_SEPARATOR}${path}`;
      out.matches.push(...r.matches.map((m): SearchMatch => ({ ...m, path: ns(m.path) })));
      out.totalMatches += r.totalMatches;
      out.filesScanned += r.filesScanned;
      out.filesMatched += r.filesMatched;
      out.truncated ||= r.truncated;
      out.timedOut ||= r.timedOut;
      if (out.counts && r.counts) out.counts.push(...r.counts.map((c) => ({ ...c, path: ns(c.path) })));
    }
    out.matches = out.matches.slice(0, maxResults);
    out.truncated ||= out.totalMatches > out.matches.length && !options.countOnly;
    out.elapsedMs = performance.now() - t0;
    return { generation: this.builtVersion, stale: false, ...out };
  }

  /** The members a search scope covers: `<repo>::dir` (checked by that member's path guard), `<repo>` alone, a plain path (the workspace's), or all. */
  private searchTargets(scope: string | undefined): { member: FederationMember; scope: string | undefined }[] {
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
  }

  override warmIndexes(): Promise<void> {
    return this.prepareSeek();
  }

  /** `<repo>::path` through that member's path checks; a plain path is the workspace's. */
  override resolvePath(userPath: string): WorkspacePath {
    const { member, rest } = this.memberOf(userPath);
    const p = member.engine.resolvePath(rest);
    return { absolute: p.absolute, relative: `${member.name}${NAMESPACE_SEPARATOR}${p.relative}` };
  }

  override readFile(userPath: string): FileContent {
    const { member, rest } = this.memberOf(userPath);
    const f = member.engine.readFile(rest);
    return { ...f, path: `${member.name}${NAMESPACE_SEPARATOR}${f.path}` };
  }

  override fileExtraction(path: string): FileExtraction | null {
    const split = this.split(path);
    return split ? split.member.engine.fileExtraction(split.rest) : null;
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

  private split(text: string): { member: FederationMember; rest: string } | null {
    const at = text.indexOf(NAMESPACE_SEPARATOR);
    if (at <= 0) return null;
    const member = this.spec.members.find((m) => m.name === text.slice(0, at));
    return member ? { member, rest: text.slice(at + NAMESPACE_SEPARATOR.length) } : null;
  }

  private memberOf(userPath: string): { member: FederationMember; rest: string } {
    const split = this.split(userPath);
    if (split) return split;
    const own = this.spec.members.find((m) => m.own);
    if (own) return { member: own, rest: userPath };
    throw new EngineError(EngineErrorCodes.PATH_NOT_FOUND, `${userPath} names no repository of the federation`, `prefix the path with a repository name: ${this.spec.members.map((m) => `${m.name}${NAMESPACE_SEPARATOR}`).join(', ')}`);
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

/** The repository name an id or path is namespaced with (`lib` of `lib::src/a.ts`), or null. */
export function namespaceOf(text: string): string | null {
  const at = text.indexOf(NAMESPACE_SEPARATOR);
  return at > 0 ? text.slice(0, at) : null;
}

/** The file node id of a path, in the workspace graph (`file:src/a.ts`) or the federated view (`lib::file:src/a.ts` for `lib::src/a.ts`). */
export function fileIdOf(path: string): string {
  const ns = namespaceOf(path);
  return ns === null ? `file:${path}` : `${ns}${NAMESPACE_SEPARATOR}file:${path.slice(ns.length + NAMESPACE_SEPARATOR.length)}`;
}

export type { GraphNode };
