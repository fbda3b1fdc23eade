/**
 * Per-agent activation boosts: what `warmup` primes and `trail_resume` re-applies, read back by
 * every ranking verb (activate, seek re-rank, perspective routes) for that agent. Session memory
 * (not the store), so read-only servers can prime too; trails persist their own copy.
 */
import type { SessionStore } from '../../core/index.ts';

export interface BoostEntry {
  nodeId: string;
  weight: number;
  /** Who set it: `warmup`, `trail:<id>`, … */
  source: string;
  at: number;
}

/** Caps one node's summed boost so stacked primes cannot drown the query signal. */
export const MAX_NODE_BOOST = 1;

/** The boost book of every agent, kept in the host's session store. */
export class BoostBook {
  constructor(private readonly session: SessionStore) {}

  private entries(agentId: string): BoostEntry[] {
    return this.session.state(agentId, 'graph:boosts', () => [] as BoostEntry[]);
  }

  /** Adds boosts (node id → weight) under a source, replacing that source's earlier boost of the same node. */
  add(agentId: string, boosts: Record<string, number>, source: string): number {
    const list = this.entries(agentId);
    const now = Date.now();
    let n = 0;
    for (const [nodeId, weight] of Object.entries(boosts)) {
      if (!Number.isFinite(weight) || weight === 0) continue;
      const i = list.findIndex((e) => e.nodeId === nodeId && e.source === source);
      const entry = { nodeId, weight, source, at: now };
      if (i >= 0) list[i] = entry;
      else list.push(entry);
      n++;
    }
    return n;
  }

  /** Summed boost per node for an agent (each capped to ±MAX_NODE_BOOST). */
  map(agentId: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const e of this.entries(agentId)) out.set(e.nodeId, (out.get(e.nodeId) ?? 0) + e.weight);
    for (const [k, v] of out) out.set(k, Math.max(-MAX_NODE_BOOST, Math.min(MAX_NODE_BOOST, v)));
    return out;
  }

  /** The raw entries (for reports), newest last. */
  list(agentId: string): readonly BoostEntry[] {
    return this.entries(agentId);
  }

  /** Drops an agent's boosts, all or of one source; returns how many went. */
  clear(agentId: string, source?: string): number {
    const list = this.entries(agentId);
    const before = list.length;
    const keep = source === undefined ? [] : list.filter((e) => e.source !== source);
    list.splice(0, list.length, ...keep);
    return before - list.length;
  }
}
