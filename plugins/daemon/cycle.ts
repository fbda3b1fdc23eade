/**
 * One daemon cycle over a batch of changed paths: present files are re-ingested through the graph
 * service (incremental, by path); deleted files leave the graph and raise `file_deleted` — or
 * `file_moved` when a file with the same content appeared in the same batch; documents whose links
 * pointed at a deleted file or its symbols raise `binding_broken` (resolved once the edited document
 * no longer makes the link, broken-links.ts); memory claims citing a touched file
 * are re-checked and raise `claim_stale` (resolved again once fresh).
 */
import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GraphService } from '../graph/api.ts';
import type { Claim, MemoryService } from '../memory/api.ts';
import type { Alert, AlertInput } from './alert-book.ts';
import { storeAway, type AlertOutbox } from './alert-outbox.ts';
import { linkFollowedMove, resolveFixedLinks } from './broken-links.ts';
import { SLICE_MS, slicer } from './slices.ts';
import type { ChangeKind } from './tree-watcher.ts';

/** What the graph knew of a deleted file: documents linking to it or to its symbols. */
export interface DocLink {
  doc: string;
  node: string;
  target: string;
}

/** Links kept per deleted file, and content read to match a move. */
const MAX_LINKS = 50;
const MAX_HASHED_BYTES = 4 * 1024 * 1024;
/** Changed files re-ingested by path; more go through one incremental ingest of the watch paths. */
const MAX_BY_PATH = 32;
/** Claims checked for freshness at once (then the slice timer decides whether to yield). */
const CLAIM_SLICE = 20;
/** Files stat'ed at once. */
const STAT_BATCH = 32;
const MAX_CLAIMS_CHECKED = 5000;

/** Documents (sections and files elsewhere) whose `documents` edges reach this file or its symbols. */
export function docLinksTo(graph: GraphService, path: string): DocLink[] {
  const g = graph.engine.graph;
  const fileId = `file:${path}`;
  if (!g.get(fileId)) return [];
  const out: DocLink[] = [];
  for (const target of [fileId, ...graph.fileSymbols(path).map((n) => n.id)]) {
    for (const e of g.incoming(target, 'documents')) {
      const source = g.get(e.source);
      if (!source || source.path === path) continue;
      out.push({ doc: source.path, node: source.id, target });
      if (out.length >= MAX_LINKS) return out;
    }
  }
  return out;
}

/** The graph's files under a folder (a folder deleted or moved away: its files went with it). */
export function filesUnder(graph: GraphService, folder: string): string[] {
  const prefix = `${folder}/`;
  return graph.engine.filePaths().filter((p) => p.startsWith(prefix));
}

export interface CycleDeps {
  graph: GraphService;
  memory: MemoryService | null;
  /** The alert book behind an outbox: what the store refuses while it is away waits for the next cycle. */
  alerts: AlertOutbox;
  source: string;
  /** Files the graph knew when the watcher saw them deleted, with the documents linking to them (before anyone re-ingested). */
  linksAtUnlink: Map<string, DocLink[]>;
  /** Whether a workspace path is under the watch paths (default: every path). */
  covers?: (path: string) => boolean;
}


export interface CycleReport {
  processed: number;
  reingested: string[];
  /** Files the incremental walk re-ingested or removed that no entry named (their events were lost, or are still queued). */
  unreported: string[];
  deleted: string[];
  moved: { from: string; to: string }[];
  alerts_raised: { id: string; kind: string; subject: string }[];
  alerts_resolved: number;
  claims_checked: number;
  generation: number | null;
  errors: string[];
  /** Alert changes waiting for the store after this cycle (told in `errors`, not counted as a failure). */
  waiting: number;
}

async function sha1Of(absolute: string, size: number): Promise<string | null> {
  if (size > MAX_HASHED_BYTES) return null;
  try {
    return createHash('sha1').update(await readFile(absolute)).digest('hex');
  } catch {
    return null;
  }
}

/** The condition key of a document link broken by a deletion or move. */
function brokenLinkKey(link: DocLink): string {
  return `binding_broken:${link.node}->${link.target}`;
}

/** The links a `file_deleted` alert recorded as broken by the deletion. */
function brokenLinksOf(alert: Alert | null): { dedup: string; target: string }[] {
  const list = alert?.details?.broken_links;
  return Array.isArray(list) ? list.filter((l): l is { dedup: string; target: string } => typeof l?.dedup === 'string' && typeof l?.target === 'string') : [];
}

/**
 * Records what the ingest took in under the watch paths: the files it re-parsed (their content
 * changed, or they are new) in `reingested`, and in `unreported` those and the removed files when no
 * entry named them (an incremental walk takes in every changed file, also one whose event was lost).
 * The walk is scoped to the watch paths (`covers`, the ingest's `within`); the filter here keeps the
 * counts right for an engine that ignores the scope. Returns the removed files no entry named.
 */
function recordTaken(report: CycleReport, taken: { changed: readonly string[]; removed: readonly string[] }, named: ReadonlySet<string>, covers: (path: string) => boolean): string[] {
  for (const p of taken.changed) {
    if (!covers(p)) continue;
    report.reingested.push(p);
    if (!named.has(p)) report.unreported.push(p);
  }
  const removed = taken.removed.filter((p) => covers(p) && !named.has(p));
  report.unreported.push(...removed);
  return removed;
}

/** Runs one cycle over `entries` (workspace-relative paths with their last event). */
export async function runCycle(deps: CycleDeps, entries: readonly { path: string; kind: ChangeKind }[], options: { checkAllClaims: boolean; signal?: AbortSignal }): Promise<CycleReport> {
  const { graph, alerts, source } = deps;
  const root = graph.engine.root;
  const report: CycleReport = { processed: entries.length, reingested: [], unreported: [], deleted: [], moved: [], alerts_raised: [], alerts_resolved: 0, claims_checked: 0, generation: null, errors: [], waiting: 0 };
  // Every step below is small; the slice timer yields the event loop every few milliseconds.
  const slice = slicer();
  const opened = (alert: Alert) => report.alerts_raised.push({ id: alert.id, kind: alert.kind, subject: alert.path ?? alert.node ?? '' });
  const raise = async (input: Omit<AlertInput, 'source'>) => {
    const r = await alerts.raise({ ...input, source });
    if (r?.opened) opened(r.alert);
    await slice();
  };
  // A resolved deletion: a link it broke holds again once what it names is back in the graph.
  const resolveLinksOf = async (deletion: Alert | null) => {
    for (const link of brokenLinksOf(deletion)) {
      if (!graph.engine.graph.get(link.target) || !(await alerts.resolve(link.dedup, `${link.target} exists again`))) continue;
      report.alerts_resolved++;
      await slice();
    }
  };

  // 0. What earlier cycles found while the store was away is written first.
  if (alerts.size > 0) {
    const flushed = await alerts.flush();
    for (const a of flushed.opened) opened(a);
    for (const a of flushed.resolved) {
      report.alerts_resolved++;
      if (a.kind === 'file_deleted') await resolveLinksOf(a);
    }
  }

  // 1. Which paths are files now, which are gone (the last event may be stale: stat decides). A
  // folder deleted or moved away stands for the graph's files under it.
  const present: { path: string; size: number }[] = [];
  const gone: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < entries.length; i += STAT_BATCH) {
    const batch = entries.slice(i, i + STAT_BATCH);
    const stats = await Promise.all(batch.map((e) => lstat(join(root, e.path)).catch(() => null)));
    batch.forEach((e, k) => {
      const st = stats[k];
      if (st?.isFile()) present.push({ path: e.path, size: st.size });
      else if (!st && !graph.engine.graph.get(`file:${e.path}`) && !deps.linksAtUnlink.has(e.path)) {
        for (const p of filesUnder(graph, e.path)) if (!seen.has(p)) gone.push(p), seen.add(p);
      } else if (!st?.isDirectory() && !seen.has(e.path)) {
        gone.push(e.path);
        seen.add(e.path);
      }
    });
    await slice();
  }

  // 2. Deleted files the graph knew (or whose links the watcher captured); present files it does not know yet.
  const inGraph = (p: string) => Boolean(graph.engine.graph.get(`file:${p}`));
  const known = gone.filter((p) => deps.linksAtUnlink.has(p) || inGraph(p));
  const links = new Map(known.map((p) => [p, deps.linksAtUnlink.get(p) ?? docLinksTo(graph, p)]));
  for (const p of gone) deps.linksAtUnlink.delete(p);
  const added = present.filter((f) => !inGraph(f.path));

  // 3. A deleted file whose bytes (the store's sha1) reappear under a new path in the same batch moved
  // there. The store's file rows are read only then: reading them all is the costly part.
  const movedTo = new Map<string, string>();
  if (known.length > 0 && added.length > 0 && graph.engine.storeExists()) {
    const rows = graph.engine.storedFiles(known);
    const addedByHash = new Map<string, string>();
    for (const f of added) {
      const hash = await sha1Of(join(root, f.path), f.size);
      if (hash && !addedByHash.has(hash)) addedByHash.set(hash, f.path);
    }
    for (const p of known) {
      const hash = rows.get(p)?.hash;
      const to = hash ? addedByHash.get(hash) : undefined;
      if (to) {
        movedTo.set(p, to);
        addedByHash.delete(hash!);
      }
    }
  }

  // 4. Re-ingest present and deleted paths by path (the engine prunes deleted files' nodes and edges).
  const reingest = [...present.map((f) => f.path), ...gone];
  if (reingest.length && graph.writable && graph.engine.storeExists() && graph.engine.graph.nodeCount > 0) {
    try {
      // A large batch goes through the engine's incremental ingest (an asynchronous walk, one relink),
      // which holds the event loop far less than a by-path ingest of as many files. It is scoped to the
      // watch paths (`within`): a change elsewhere is not the daemon's to take in, since it would get no
      // alert, no claim check and no count (the walk's directory listing is cached, so the scope
      // costs nothing and spares reading the changed files elsewhere).
      // Background work: the engine yields every SLICE_MS (a few ms), not its default 20 ms.
      const slices = { signal: options.signal, sliceMs: SLICE_MS };
      // Counted as re-ingested: what the ingest re-parsed, not what it was handed (a file touched without
      // a change, or one it leaves out — generated, minified, binary — is not).
      const taken = { changed: [] as readonly string[], removed: [] as readonly string[] };
      const onFiles = (f: typeof taken) => void Object.assign(taken, f);
      const summary = await graph.engine.ingest(reingest.length > MAX_BY_PATH ? { incremental: true, within: deps.covers, ...slices, onFiles } : { paths: reingest, ...slices, onFiles });
      report.generation = summary.generation;
      // A re-ingest that went through clears an earlier failure.
      if (await alerts.resolve(`ingest_failed:${source}`, 'a later re-ingest succeeded')) report.alerts_resolved++;
      // A removed file no event named is raised as deleted when it is gone from disk (one the ingest's
      // rules exclude now left the graph, not the disk); its links left the graph with it, so no
      // broken binding is raised for it.
      for (const p of recordTaken(report, taken, new Set(reingest), deps.covers ?? (() => true))) {
        if (!(await lstat(join(root, p)).catch(() => null))) known.push(p);
        await slice();
      }
    } catch (error) {
      const message = (error as Error).message;
      report.errors.push(message);
      await raise({ kind: 'ingest_failed', severity: 'error', path: reingest[0], message: `re-ingesting ${reingest.length} changed file(s) failed: ${message}`, dedup: `ingest_failed:${source}`, details: { paths: reingest.slice(0, 20) } });
    }
  }

  // 5. Alerts for deletions, moves and the document links they broke.
  for (const p of known) {
    const to = movedTo.get(p);
    if (to) {
      report.moved.push({ from: p, to });
      await raise({ kind: 'file_moved', severity: 'info', path: p, message: `${p} moved to ${to} (same content)`, dedup: `file_moved:${p}`, details: { to } });
    } else {
      report.deleted.push(p);
      // The links it broke go with the alert: when the file comes back, the ones whose target is back resolve.
      const broken = (links.get(p) ?? []).map((link) => ({ dedup: brokenLinkKey(link), target: link.target }));
      await raise({ kind: 'file_deleted', severity: 'warning', path: p, node: `file:${p}`, message: `${p} was deleted; its nodes and edges left the graph`, dedup: `file_deleted:${p}`, ...(broken.length ? { details: { broken_links: broken } } : {}) });
    }
    for (const link of links.get(p) ?? []) {
      if (to && linkFollowedMove(graph, link, p, to)) continue;
      await raise({
        kind: 'binding_broken',
        severity: 'warning',
        path: link.doc,
        node: link.node,
        message: `${link.doc} links to ${link.target}, which ${to ? `moved to ${to}` : 'was deleted'}`,
        dedup: brokenLinkKey(link),
        details: { target: link.target, ...(to ? { moved_to: to } : {}) },
      });
    }
  }
  for (const f of present) {
    const deletion = await alerts.resolve(`file_deleted:${f.path}`, 'the file exists again');
    if (deletion) report.alerts_resolved++;
    // Moved away and back (or another file is there now): "moved to" no longer describes the path.
    if (await alerts.resolve(`file_moved:${f.path}`, 'the file exists again')) report.alerts_resolved++;
    await slice();
    await resolveLinksOf(deletion);
  }

  // A document edited since: the broken links it no longer makes clear.
  report.alerts_resolved += await resolveFixedLinks(graph, alerts, present.map((f) => f.path), slice);

  // 6. Claims citing a touched file (or every claim, on a full poll): stale raises, fresh resolves.
  if (deps.memory) {
    // With the paths whose claims could not be re-checked while the store was away.
    const touched = new Set([...present.map((f) => f.path), ...gone, ...alerts.takeRecheck()]);
    let all: readonly Claim[];
    try {
      all = await deps.memory.claims.all();
    } catch (error) {
      if (!storeAway(error)) throw error;
      alerts.recheckLater(touched, (error as Error).message);
      all = [];
    }
    // A full poll checks the claims citing a watched file (a claim about files elsewhere is not the daemon's).
    const covers = deps.covers ?? (() => true);
    const cited = (c: Claim) => c.evidence.some((a) => (options.checkAllClaims ? covers(a.path) : touched.has(a.path)));
    const relevant = all.filter((c) => !c.superseded_by && c.evidence.length > 0 && cited(c)).slice(0, MAX_CLAIMS_CHECKED);
    // A superseded claim is nobody's word any more: its stale alert, if one is open, resolves.
    for (const c of all.filter((x) => x.superseded_by && cited(x)).slice(0, MAX_CLAIMS_CHECKED)) {
      if (await alerts.resolve(`claim_stale:${c.id}`, `the claim was superseded by ${c.superseded_by}`)) report.alerts_resolved++;
      await slice();
    }
    for (let i = 0; i < relevant.length; i += CLAIM_SLICE) {
      const batch: Claim[] = relevant.slice(i, i + CLAIM_SLICE);
      const fresh = deps.memory.freshness(batch);
      for (const c of batch) {
        const f = fresh.get(c.id)!;
        const dedup = `claim_stale:${c.id}`;
        if (f.state === 'stale') {
          const what = f.changed.map((x) => `${x.evidence} ${x.what.replace('_', ' ')}`).join('; ');
          await raise({
            kind: 'claim_stale',
            severity: 'warning',
            path: c.evidence[0].path,
            node: c.evidence.find((a) => a.node)?.node,
            message: `claim ${c.id} by ${c.author} is stale: ${what}`,
            dedup,
            ...(c.scope === 'agent' ? { audience: c.author } : {}),
            details: { claim_id: c.id, text: c.text.slice(0, 200), changed: f.changed.slice(0, 10) },
          });
        } else if (await alerts.resolve(dedup, 'the claim is fresh again')) {
          report.alerts_resolved++;
        }
      }
      report.claims_checked += batch.length;
      await slice();
    }
  }
  report.waiting = alerts.size;
  if (alerts.size > 0) report.errors.push(`waiting for the alert store (${alerts.reason}): ${alerts.describe()}; the next cycle writes them`);
  return report;
}
