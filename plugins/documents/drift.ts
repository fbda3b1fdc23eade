/**
 * Drift between a document and the code it names. The first time bindings are computed for a given
 * version of a document, each target's text is fingerprinted (the baseline); later, a target whose
 * text changed is stale, one that left the graph (a file the graph does not parse: the disk) is
 * gone. A new version of the document starts a new baseline (its author saw the code as it then was). The baseline is kept in memory by the read verbs
 * and stored by `document_bindings` with `persist: true`; without one (a document never bound in this
 * process nor stored), a target file modified after the document is stale. Missing and ambiguous
 * links are always reported.
 */
import { statSync } from 'node:fs';
import type { GraphService } from '../graph/api.ts';
import { fingerprint, targetExists, type Binding } from './bindings.ts';
import { keepRecord, saveRecord, type DocumentRecord } from './document-book.ts';

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
 * store with `persist` (write calls only); returns its time.
 */
export function recordBaseline(graph: GraphService, record: DocumentRecord, bindings: readonly Binding[], persist = false): number {
  if (record.baseline) {
    if (persist) saveRecord(graph, record);
    return record.baseline.bound_at;
  }
  const entries: NonNullable<DocumentRecord['baseline']>['bindings'] = {};
  for (const b of bindings) {
    if (b.status === 'missing') continue;
    entries[key(b)] = b.targets.map((t) => ({ id: t.id, fingerprint: fingerprint(graph, t) }));
  }
  const next = { ...record, baseline: { bound_at: Date.now(), bindings: entries } };
  if (persist) saveRecord(graph, next);
  else keepRecord(graph, next);
  record.baseline = next.baseline;
  return next.baseline.bound_at;
}

/** The drift findings of a document version against its baseline (or file times without one). */
export function driftFindings(graph: GraphService, record: DocumentRecord, bindings: readonly Binding[], documentMtimeMs: number): DriftFinding[] {
  const out: DriftFinding[] = [];
  const at = (b: Binding, kind: DriftFinding['kind'], targets: string[], reason: string) => out.push({ kind, text: b.text, line: b.first_line, section: b.section, targets, reason });
  const baseline = record.baseline?.bindings;
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
  for (const b of bindings) {
    const was = baseline?.[key(b)];
    if (b.status === 'missing') {
      const reason = was?.length ? `named ${was.map((t) => t.id).join(', ')} when the document was bound; no such ${b.kind} now` : `no ${b.kind} "${b.text}" in the graph`;
      at(b, was?.length ? 'gone' : 'missing', was?.map((t) => t.id) ?? [], reason);
      continue;
    }
    if (b.status === 'ambiguous') at(b, 'ambiguous', b.targets.map((t) => t.id), `${b.candidates ?? b.targets.length} candidates; qualify the name with its class (Class.method) or its file (src/a.ts#name)`);
    if (was) {
      const changed = was.filter((t) => targetExists(graph, t.id) && t.fingerprint !== null && fingerprint(graph, t) !== t.fingerprint).map((t) => t.id);
      if (changed.length) at(b, 'stale', changed, `changed since the document was bound at ${new Date(record.baseline!.bound_at).toISOString()}`);
    } else if (!baseline) {
      const newer = b.targets.filter((t) => mtimeOf(t.path) > documentMtimeMs).map((t) => t.id);
      if (newer.length) at(b, 'stale', newer, 'file modified after the document');
    }
  }
  return out;
}
