/**
 * What xray writes keeps in the store (the engine's memory table, beside the graph): node tags
 * (`xray_paint`, `xray_retag`) and the append-only ledger of committed xray writes, read newest first.
 */
import type { GraphService } from '../../graph/api.ts';

const TAGS = 'xray.tags';
const LEDGER = 'xray.ledger';
export const MAX_TAGS_PER_NODE = 32;

/** One committed xray write. */
export interface LedgerEntry {
  seq: number;
  at: string;
  verb: string;
  agent_id: string;
  summary: string;
  /** Files written (xray_apply) or nodes retagged (counts and a sample). */
  files?: string[];
  nodes?: number;
  sample?: string[];
  version_before?: string;
  version_after?: string;
}

/**
 * Appends an entry; the key (zero-padded sequence) keeps the ledger in order. The last sequence is
 * read and the next written in one write transaction: two processes sharing the store (a server and
 * an `m1nd call`) never take the same number, which would overwrite an entry.
 */
export function appendLedger(graph: GraphService, entry: Omit<LedgerEntry, 'seq' | 'at'>): LedgerEntry {
  const mem = graph.engine.memory;
  return mem.transaction(() => {
    const full: LedgerEntry = { seq: lastSeq(graph) + 1, at: new Date().toISOString(), ...entry };
    mem.set(LEDGER, String(full.seq).padStart(10, '0'), full);
    return full;
  });
}

function lastSeq(graph: GraphService): number {
  const rows = graph.engine.memory.list<LedgerEntry>(LEDGER, '', 100_000);
  return rows.length ? rows[rows.length - 1].value.seq : 0;
}

/** Ledger entries newest first, optionally of one verb. */
export function readLedger(graph: GraphService, limit: number, verb?: string): { entries: LedgerEntry[]; total: number } {
  const rows = graph.engine.memory.list<LedgerEntry>(LEDGER, '', 100_000).map((r) => r.value);
  const picked = (verb ? rows.filter((e) => e.verb === verb) : rows).reverse();
  return { entries: picked.slice(0, limit), total: picked.length };
}

/** The tags of every tagged node. */
export function allTags(graph: GraphService): Map<string, string[]> {
  return new Map(graph.engine.memory.list<string[]>(TAGS, '', 1_000_000).map((r) => [r.key, r.value]));
}

/** Replaces a node's tags (none: the row goes). */
export function setTags(graph: GraphService, nodeId: string, tags: readonly string[]): void {
  if (tags.length === 0) graph.engine.memory.delete(TAGS, nodeId);
  else graph.engine.memory.set(TAGS, nodeId, [...tags].sort());
}

/** A fingerprint of the tag store that changes with every tag write (for expect_version). */
export function tagsVersion(graph: GraphService): string {
  return `tags:${graph.engine.memory.stamp(TAGS)}`;
}
