/**
 * Converted documents in the code graph. The graph's own ingest parses Markdown only; a PDF, HTML,
 * DOCX, reStructuredText or text document enters it here, from its canonical Markdown: a `file`
 * node for the source path, one `section` node per heading (ids as the graph gives Markdown
 * sections: `section:docs/spec.pdf#Design.Checkout`), `contains` edges (folder → file → sections),
 * and a `documents` edge from the section holding each bound mention to the code it names (the
 * bindings of bindings.ts: paths, symbols, commands). So seek, impact (the documents naming a
 * symbol), why and the daemon's broken-link alerts see them like Markdown.
 *
 * After the graph changed (an edit re-ingested, a reload), before the next call, bindings are
 * recomputed against the graph as it is, and a document's nodes and edges are rewritten only when
 * they differ from what it should have (its content changed, a bound target went or a mention binds
 * anew); the others are left alone, and the graph needs no new CSR when none was rewritten (the
 * apply never refreshes the graph itself; the call that re-ingests leaves the re-link to the next one). Section text goes
 * into the node's `doc` (shown, its first 1,000 characters) and `text` (indexed by seek whole, up to
 * 32K characters, never shown); line ranges are 0..0 because the lines are the
 * artefact's, not the source file's (document_resolve gives the artefact and its heading lines).
 *
 * Which documents are in the graph is remembered in the workspace store (namespace
 * `documents.graph`, one row per path) by writing calls only, so a restarted server puts them back.
 */
import { ensureFinal, RELATION_CODE, SliceClock, type CodeGraph, type CodeGraphEngine, type GraphNode, type GraphService } from '../graph/api.ts';
import { bindingResolver, type Binding } from './bindings.ts';
import { artefactVersion, loadRecord, saveRecord, type DocumentRecord } from './document-book.ts';
import { edgesOf, sameEdges, wantedEdges } from './document-edges.ts';
import { entryOf, nodeKeys, sameIdentity, type DocumentEntry } from './document-entry.ts';

export const GRAPH_NAMESPACE = 'documents.graph';
/** Converted documents kept in the graph at most (the oldest leaves first). */
export const MAX_GRAPH_DOCUMENTS = 500;
export { INDEXED_TEXT_CHARS } from './document-entry.ts';
/** Main-thread time between yields while documents are re-linked (background work before a call; the turn's shared budget, SliceClock). */
const RELINK_SLICE_MS = 4;

/** Stored membership row. */
interface MemberRow {
  source_hash: string;
}

class DocumentNodes {
  private readonly docs = new Map<string, DocumentEntry>();
  private restored = false;
  private appliedTo: CodeGraph | null = null;
  private appliedVersion = -1;
  /** Documents added or replaced since the last apply (linked alone while the graph did not change). */
  private readonly pending = new Set<string>();
  private chain: Promise<void> = Promise.resolve();
  /** Mutations and applies queued on the chain and not finished. */
  private queued = 0;

  constructor(private readonly graph: GraphService) {}

  /** Adds (or replaces) a document's nodes from its record (linked before the next call); remembered in the store when the server may write. */
  put(record: DocumentRecord): Promise<void> {
    return this.serial(() => this.putNow(record));
  }

  /** Whether a document is in the graph, or added and linked before the next call. */
  has(path: string): boolean {
    this.restore();
    return this.docs.has(path);
  }

  /** Takes a document's nodes (and their edges) out of the graph; false when it had none. */
  drop(path: string): Promise<boolean> {
    return this.serial(() => this.dropNow(path));
  }

  /** Brings the graph up to date with the documents (after the graph changed). */
  ensure(): Promise<void> {
    return this.serial(() => this.apply());
  }

  /**
   * Whether `ensure()` would find nothing to do: nothing is queued, and the graph is empty (apply
   * links nothing into it), or the stored documents were restored and there are none or the graph is
   * the final one they were linked to with none pending.
   * Synchronous and allocation-free: the before-call tap asks it on every call.
   */
  upToDate(): boolean {
    if (this.queued > 0) return false;
    // As apply: nothing to link into an empty (or not yet loaded) graph. Without this, every call in a
    // workspace never ingested queued an apply (a promise chain and closures) that returned at once.
    if (this.graph.engine.graph.nodeCount === 0) return true;
    if (!this.restored) return false;
    if (this.docs.size === 0) return true;
    if (this.pending.size > 0) return false;
    const g = this.graph.engine.graph;
    return g === this.appliedTo && g.version === this.appliedVersion && !g.needsFinalize;
  }

  /** Every mutation of the documents' nodes runs after the previous one (an apply awaits between documents). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.chain.then(fn);
    const done = () => void this.queued--;
    this.chain = run.then(done, done);
    return run;
  }

  private async putNow(record: DocumentRecord): Promise<void> {
    this.restore();
    const previous = this.docs.get(record.path);
    if (previous?.hash === artefactVersion(record)) return;
    if (previous) this.removeNodes(previous);
    this.docs.delete(record.path);
    this.docs.set(record.path, entryOf(record));
    while (this.docs.size > MAX_GRAPH_DOCUMENTS) {
      const [oldest] = this.docs.keys();
      await this.dropNow(oldest);
    }
    if (this.writable()) {
      saveRecord(this.graph, record);
      this.graph.engine.memory.set(GRAPH_NAMESPACE, record.path, { source_hash: record.source_hash } satisfies MemberRow);
    }
    this.pending.add(record.path);
  }

  private async dropNow(path: string): Promise<boolean> {
    this.restore();
    const entry = this.docs.get(path);
    if (this.writable()) this.graph.engine.memory.delete(GRAPH_NAMESPACE, path);
    if (!entry) return false;
    this.docs.delete(path);
    this.pending.delete(path);
    const g = this.graph.engine.graph;
    ensureFinal(g);
    const current = g === this.appliedTo && g.version === this.appliedVersion;
    this.removeNodes(entry);
    ensureFinal(g);
    // Removing our own nodes is no change of the code: the others need no re-link for it.
    if (current) this.appliedVersion = g.version;
    return true;
  }

  private writable(): boolean {
    return this.graph.writable && this.graph.engine.storeExists();
  }

  /** Puts back the documents a previous process added (their artefacts are stored with them). */
  private restore(): void {
    if (this.restored || !this.graph.engine.storeExists()) return;
    this.restored = true;
    for (const row of this.graph.engine.memory.list<MemberRow>(GRAPH_NAMESPACE, '', MAX_GRAPH_DOCUMENTS)) {
      const record = loadRecord(this.graph, row.key);
      if (record && record.source_hash === row.value.source_hash && !this.docs.has(record.path)) {
        this.docs.set(record.path, entryOf(record));
        this.pending.add(record.path);
      }
    }
  }

  private async apply(): Promise<void> {
    // The graph as it is: refreshing is the handler's business (a call that re-ingests re-links on the next one).
    const g = this.graph.engine.graph;
    // Nothing to link into an empty (or not yet loaded) graph, so the store is not opened for it.
    if (g.nodeCount === 0) return;
    this.restore();
    if (this.docs.size === 0) return;
    ensureFinal(g);
    const version = g.version;
    // The graph changed (an edit, a reload): only documents naming what changed are resolved again
    // (all of them after a reload or a folder change), plus the new ones.
    const changed = g !== this.appliedTo || g.version !== this.appliedVersion;
    if (!changed && this.pending.size === 0) return;
    const affected = changed ? await this.affectedBy(g) : new Set<string>();
    if (this.graph.engine.graph !== g || g.version !== version) return this.apply(); // changed meanwhile: start over
    const todo = [...this.docs.values()].filter((e) => affected.has(e.path) || this.pending.has(e.path) || e.bound === null);
    const bound = new Map<string, Binding[]>();
    if (todo.length > 0) {
      const resolve = await bindingResolver(this.graph, { refresh: false });
      const clock = new SliceClock(RELINK_SLICE_MS);
      for (const entry of todo) {
        bound.set(entry.path, resolve(entry.path, entry.mentions));
        this.resolved++;
        if (clock.spent()) await clock.yield();
      }
    }
    const now = this.graph.engine.graph;
    if (now !== g || now.version !== version) return this.apply(); // changed meanwhile: start over on the graph as it is
    ensureFinal(now);
    // Only a document whose own nodes or wanted edges differ from the graph's is rewritten: one whose
    // content changed (new node objects), whose bound targets changed (re-parsed, gone, or another
    // symbol now bound), or whose folder node changed. The others keep their edges, and the graph
    // needs no new CSR when none was rewritten.
    let rewritten = 0;
    for (const entry of todo) {
      const bindings = bound.get(entry.path) ?? [];
      entry.bound = bindings;
      const want = wantedEdges(now, entry, bindings);
      if (!this.pending.has(entry.path) && want !== null && sameEdges(now, entry, want)) continue;
      this.relink(now, entry, bindings);
      rewritten++;
    }
    this.relinked += rewritten;
    if (rewritten > 0) now.finalize();
    this.appliedTo = now;
    this.appliedVersion = now.version;
    this.pending.clear();
    await this.remember(now);
  }

  /**
   * The documents whose bindings a change of the graph since the last apply may change: those naming
   * a changed node's name or path (node slots compared with the last apply's, by object: an ingest
   * replaces a changed file's nodes and leaves the others' objects alone; a node re-parsed with the
   * same id, kind, names and path changes no binding). All of them when the
   * graph was replaced or a folder node changed (a document's folder edge follows the nearest one).
   */
  private async affectedBy(g: CodeGraph): Promise<Set<string>> {
    const all = () => new Set(this.docs.keys());
    if (g !== this.appliedTo || this.seen === null) return all();
    const seen = this.seen;
    const keys = new Set<string>();
    const clock = new SliceClock(RELINK_SLICE_MS);
    for (let i = 0; i < Math.max(g.nodeCapacity, seen.length); i++) {
      const before = seen[i] ?? null;
      const after = i < g.nodeCapacity ? g.node(i) : null;
      if (before === after) continue;
      // Re-parsed as the same symbol (an edit inside it): bindings name ids, and the edges into it hold.
      if (before && after && sameIdentity(before, after)) continue;
      for (const n of [before, after]) {
        if (!n) continue;
        if (n.kind === 'module') return all();
        nodeKeys(n, keys);
      }
      if ((i & 1023) === 0 && clock.spent()) {
        await clock.yield();
        if (g.version !== this.graph.engine.graph.version) return all(); // the caller starts over
      }
    }
    const out = new Set<string>();
    if (keys.size === 0) return out;
    for (const [path, entry] of this.docs) {
      for (const k of entry.keys) {
        if (keys.has(k)) {
          out.add(path);
          break;
        }
      }
    }
    return out;
  }

  /** Keeps the node objects of every slot, to find what the next change touched. */
  private async remember(g: CodeGraph): Promise<void> {
    const n = g.nodeCapacity;
    const seen: (GraphNode | null)[] = this.seen && this.seen.length === n ? this.seen : new Array(n);
    const clock = new SliceClock(RELINK_SLICE_MS);
    for (let i = 0; i < n; i++) {
      seen[i] = g.node(i);
      if ((i & 4095) === 0 && clock.spent()) {
        this.seen = null; // half-filled: the next change re-resolves all rather than trust it
        await clock.yield();
        if (g !== this.graph.engine.graph || g.version !== this.appliedVersion) return;
      }
    }
    this.seen = seen;
  }

  /** The graph's node objects by slot at the last apply (null: unknown, every document is resolved again). */
  private seen: (GraphNode | null)[] | null = null;

  /** Documents whose bindings were resolved again since this process started (those naming what changed). */
  resolved = 0;

  /** Documents rewritten in the graph since this process started (the others' links were found intact). */
  relinked = 0;

  /** Converted documents in the graph now. */
  get size(): number {
    return this.docs.size;
  }

  /** Puts a document's nodes in the graph (the same objects each time) and replaces its edges. */
  private relink(now: CodeGraph, entry: DocumentEntry, bindings: readonly Binding[]): void {
    const code = RELATION_CODE;
    const fileIdx = now.upsertNode(entry.file);
    const index = new Map<string, number>();
    for (const s of entry.sections) index.set(s.node.qualifiedName!, now.upsertNode(s.node));
    const dead: number[] = [];
    for (const i of [fileIdx, ...index.values()]) now.forEachOut(i, (_t, _w, _r, e) => dead.push(e));
    now.forEachIn(fileIdx, (src, _w, rel, e) => {
      if (rel === code.contains && now.node(src)?.kind === 'module') dead.push(e);
    });
    for (const e of dead) now.removeEdge(e);
    for (const [s, t, r, w] of edgesOf(now, entry, bindings, fileIdx, index)) now.addEdge(s, t, r, w);
  }

  private removeNodes(entry: DocumentEntry): void {
    const g = this.graph.engine.graph;
    for (const n of [...entry.sections.map((s) => s.node), entry.file]) {
      const i = g.indexOf(n.id);
      if (i >= 0 && g.node(i) === n) g.removeNode(i);
    }
  }
}

const perEngine = new WeakMap<CodeGraphEngine, DocumentNodes>();

/** The converted documents in a workspace graph. */
export function documentNodes(graph: GraphService): DocumentNodes {
  let d = perEngine.get(graph.engine);
  if (!d) perEngine.set(graph.engine, (d = new DocumentNodes(graph)));
  return d;
}

export type { DocumentNodes };
