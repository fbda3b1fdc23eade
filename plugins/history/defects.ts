/**
 * Defect evidence per file, shared by trust, epidemic and heuristics_surface: fix commits from git
 * (subject matches the fix pattern; sweeping commits ignored) and `learn` outcomes (wrong = a defect
 * outcome, partial = half of one, correct = a clean outcome) on the file's nodes, both
 * recency-weighted (w = max(0.3, 0.5^(age / half-life)), age before the anchor).
 */
import type { GraphService } from '../graph/api.ts';
import type { HistoryIndex } from './history-index.ts';

/** One `learn` event as the history verbs read it (unix seconds, the files its nodes live in). */
export interface LearnEvent {
  time: number;
  feedback: 'correct' | 'wrong' | 'partial';
  files: string[];
  query: string;
  agent: string;
}

/** Learn events visible to `agent`: team-scoped ones and the agent's own (the store keeps the newest 500). */
export function learnEvents(graph: GraphService, agent: string): LearnEvent[] {
  const g = graph.engine.graph;
  const out: LearnEvent[] = [];
  for (const e of graph.learned.events(500)) {
    if (e.scope === 'agent' && e.agent !== agent) continue;
    const files = new Set<string>();
    for (const id of e.nodes) {
      const n = g.get(id);
      if (n && n.kind !== 'module') files.add(n.path);
    }
    if (files.size) out.push({ time: Math.floor(e.at / 1000), feedback: e.feedback, files: [...files], query: e.query, agent: e.agent });
  }
  return out;
}

/** Learn events grouped by file. */
export function eventsByFile(events: readonly LearnEvent[]): Map<string, LearnEvent[]> {
  const out = new Map<string, LearnEvent[]>();
  for (const e of events) {
    for (const f of e.files) {
      let list = out.get(f);
      if (!list) out.set(f, (list = []));
      list.push(e);
    }
  }
  return out;
}

/** The defect record of one file. */
export interface DefectRecord {
  /** Non-sweeping commits, plus learn events. */
  events: number;
  commits: number;
  /** Commit indices of fix commits, oldest first. */
  fixes: number[];
  learn: { correct: number; wrong: number; partial: number; last?: LearnEvent };
  /** Σ w(defect outcomes) / Σ w(all events), in [0, 1]. */
  density: number;
}

/** The recency weight of an event `age` seconds before the anchor. */
export function recencyWeight(age: number, halfLife: number): number {
  return Math.max(0.3, Math.pow(0.5, Math.max(0, age) / halfLife));
}

/** Fix commits and learn outcomes of `file`, recency-weighted against `anchor` (unix seconds). */
export function defectRecord(index: HistoryIndex, file: string, fix: RegExp, learn: readonly LearnEvent[], anchor: number, halfLife: number): DefectRecord {
  let total = 0;
  let defects = 0;
  let commits = 0;
  const fixes: number[] = [];
  for (const ci of index.files.get(file)?.commits ?? []) {
    const c = index.commits[ci];
    if (c.sweep) continue;
    commits++;
    const w = recencyWeight(anchor - c.time, halfLife);
    total += w;
    if (fix.test(c.subject)) {
      defects += w;
      fixes.push(ci);
    }
  }
  const tally = { correct: 0, wrong: 0, partial: 0 } as DefectRecord['learn'];
  for (const e of learn) {
    const w = recencyWeight(anchor - e.time, halfLife);
    total += w;
    tally[e.feedback]++;
    if (e.feedback === 'wrong') defects += w;
    else if (e.feedback === 'partial') defects += w / 2;
    if (!tally.last || e.time >= tally.last.time) tally.last = e;
  }
  return { events: commits + learn.length, commits, fixes, learn: tally, density: total ? defects / total : 0 };
}

/** The anchor of recency weights: the newest commit, or the newest learn event when later. */
export function defectAnchor(index: HistoryIndex, learn: readonly LearnEvent[]): number {
  let t = index.newest;
  for (const e of learn) if (e.time > t) t = e.time;
  return t;
}
