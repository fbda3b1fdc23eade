/**
 * Drift between a document and the code it names. The first time bindings are computed for a given
 * version of a document, each target's text is fingerprinted (the baseline); later, a target whose
 * text changed is stale, one that left the graph (a file the graph does not parse: the disk) is
 * gone. A new version of the document starts a new baseline (its author saw the code as it then was). The baseline is kept in memory by the read verbs
 * and stored by `document_bindings` with `persist: true`; without one (a document never bound in this
 * process nor stored), a target whose lines git shows changed since the document's last commit is
 * stale (by commit, then modification, times when git cannot say). Missing and ambiguous
 * links are always reported.
 */
import { statSync } from 'node:fs';
import type { GraphService } from '../graph/api.ts';
import { fingerprint, targetExists, type Binding, type BindingTarget } from './bindings.ts';
import { keepRecord, saveRecord, type DocumentRecord } from './document-book.ts';
import { documentCommit, touches, type DocumentCommit } from './git-lines.ts';
import { readMentions, type Mention } from './mentions.ts';

export interface DriftFinding {
  kind: 'missing' | 'ambiguous' | 'stale' | 'gone';
  text: string;
  line: number;
  section: string;
  targets: string[];
  reason: string;
}

const key = (b: { kind: string; text: string }) => `${b.kind}:${b.text}`;

/**
 * Records the binding baseline of this document version if it has none, in memory — and in the
 * store with `persist` (write calls only); returns its time. A target already stale at this first
 * look by git's lines (changed since the document's last commit) is recorded so, with the reason: it
 * stays stale until the document changes, rather than being taken as what the document describes.
 * Staleness by commit or modification times only is weaker: the baseline takes the code as it is.
 */
export async function recordBaseline(graph: GraphService, record: DocumentRecord, bindings: readonly Binding[], documentMtimeMs: number, persist = false): Promise<number> {
  if (record.baseline) {
    if (persist) saveRecord(graph, record);
    return record.baseline.bound_at;
  }
  const look = firstLook(graph, record, documentMtimeMs);
  const entries: NonNullable<DocumentRecord['baseline']>['bindings'] = {};
  for (const b of bindings) {
    if (b.status === 'missing') continue;
    const stale = new Map<string, string>();
    for (const s of await look(b)) if (s.lines) for (const id of s.ids) stale.set(id, s.reason);
    entries[key(b)] = b.targets.map((t) => ({ id: t.id, fingerprint: fingerprint(graph, t), ...(stale.has(t.id) ? { stale: stale.get(t.id) } : {}) }));
  }
  // Another call may have recorded one meanwhile (the looks above wait on git).
  if (record.baseline) return (record.baseline as { bound_at: number }).bound_at;
  const next = { ...record, baseline: { bound_at: Date.now(), bindings: entries } };
  if (persist) saveRecord(graph, next);
  else keepRecord(graph, next);
  record.baseline = next.baseline;
  return next.baseline.bound_at;
}

/**
 * Which targets of a binding are stale at a first look, without a baseline: git when it knows the
 * document (the lines of each target changed since its last commit); else commit times; modification
 * times only without git (a checkout writes every file at once, in no meaningful order).
 */
function firstLook(graph: GraphService, record: DocumentRecord, documentMtimeMs: number): (b: Binding) => Promise<{ ids: string[]; reason: string; lines?: true }[]> {
  const mtimes = new Map<string, number>();
  const mtimeOf = (path: string): number => {
    let t = mtimes.get(path);
    if (t === undefined) {
      try {
        t = statSync(graph.engine.resolvePath(path).absolute).mtimeMs;
      } catch {
        t = 0;
      }
      mtimes.set(path, t);
    }
    return t;
  };
  let docGit: Promise<DocumentCommit | null> | undefined;
  let gitFiles: ReadonlyMap<string, { lastCommitAt: number }> | null | undefined;
  // A file's last commit (unix seconds) in the scanned history: its graph node's, else the history's (a converted document).
  const commitAt = (path: string): number | undefined => {
    const own = graph.engine.graph.get(`file:${path}`)?.lastCommitAt;
    if (own) return own;
    if (gitFiles === undefined) {
      try {
        gitFiles = graph.engine.gitHistory().facts?.files ?? null;
      } catch {
        gitFiles = null;
      }
    }
    return gitFiles?.get(path)?.lastCommitAt;
  };
  return async (b) => {
    const out: { ids: string[]; reason: string; lines?: true }[] = [];
    docGit ??= documentCommit(graph.engine.root, record.path);
    const git = await docGit;
    const byLines: string[] = [];
    const rest: BindingTarget[] = [];
    for (const t of b.targets) {
      const ranges = git ? await git.changed(t.path) : null;
      if (ranges === null) rest.push(t);
      else if (t.id.startsWith('file:') ? ranges.length > 0 : touches(ranges, t.lines)) byLines.push(t.id);
    }
    if (byLines.length) out.push({ ids: byLines, reason: `its lines changed since the document's last commit (${day(git!.at)})`, lines: true });
    const docCommit = commitAt(record.path);
    const newer = rest.filter((t) => {
      const commit = docCommit ? commitAt(t.path) : 0;
      return commit ? commit > docCommit! : mtimeOf(t.path) > documentMtimeMs;
    });
    const committed = newer.filter((t) => docCommit && commitAt(t.path));
    if (committed.length) out.push({ ids: committed.map((t) => t.id), reason: `file committed after the document (${day(commitAt(committed[0].path)!)}; the document ${day(docCommit!)})` });
    const modified = newer.filter((t) => !committed.includes(t));
    if (modified.length) out.push({ ids: modified.map((t) => t.id), reason: 'file modified after the document' });
    return out;
  };
}

/** The drift findings of a document version against its baseline (or, without one, a first look at git and file times). */
export async function driftFindings(graph: GraphService, record: DocumentRecord, bindings: readonly Binding[], documentMtimeMs: number): Promise<DriftFinding[]> {
  const out: DriftFinding[] = [];
  const at = (b: Binding, kind: DriftFinding['kind'], targets: string[], reason: string) => out.push({ kind, text: b.text, line: b.first_line, section: b.section, targets, reason });
  const baseline = record.baseline?.bindings;
  const look = firstLook(graph, record, documentMtimeMs);
  for (const b of bindings) {
    const was = baseline?.[key(b)];
    if (b.status === 'missing') {
      const reason = was?.length ? `named ${was.map((t) => t.id).join(', ')} when the document was bound; no such ${b.kind} now` : `no ${b.kind} "${b.text}" in the graph`;
      at(b, was?.length ? 'gone' : 'missing', was?.map((t) => t.id) ?? [], reason);
      continue;
    }
    if (b.status === 'ambiguous') at(b, 'ambiguous', b.targets.map((t) => t.id), `${b.candidates ?? b.targets.length} candidates; qualify the name with its class (Class.method) or its file (src/a.ts#name)`);
    if (was) {
      // Stale at the first look (recorded with the baseline), or changed since.
      const marked = was.filter((t) => t.stale && targetExists(graph, t.id));
      if (marked.length) at(b, 'stale', marked.map((t) => t.id), marked[0].stale!);
      const changed = was.filter((t) => !t.stale && targetExists(graph, t.id) && t.fingerprint !== null && fingerprint(graph, t) !== t.fingerprint).map((t) => t.id);
      if (changed.length) at(b, 'stale', changed, `changed since the document was bound at ${new Date(record.baseline!.bound_at).toISOString()}`);
    } else if (!baseline) {
      for (const s of await look(b)) at(b, 'stale', s.ids, s.reason);
    }
  }
  // A mention bound before that names nothing now and was left out of the bindings (a prose name, a name only the code's words have): gone.
  if (baseline) {
    const present = new Set(bindings.map(key));
    let mentions: Mention[] | null = null;
    for (const [k, was] of Object.entries(baseline)) {
      if (present.has(k) || was.length === 0) continue;
      mentions ??= readMentions(record.markdown);
      const m = mentions.find((x) => key(x) === k);
      if (m) out.push({ kind: 'gone', text: m.text, line: m.line, section: m.section, targets: was.map((t) => t.id), reason: `named ${was.map((t) => t.id).join(', ')} when the document was bound; no such ${m.kind} now` });
    }
  }
  return out;
}

function day(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}
