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

/**
 * A named boost overlay another plugin provides (e.g. `runtime_heat` from runtime_overlay): node id →
 * boost for an agent, computed when a ranking verb asks for it. Unlike the book's entries, an
 * overlay is applied only when the call names it.
 */
export type BoostOverlay = (agentId: string) => Map<string, number>;

/** The boost book of every agent, kept in the host's session store. */
export class BoostBook {
  private readonly overlays = new Map<string, BoostOverlay>();

  constructor(private readonly session: SessionStore) {}

  /** Registers (or replaces) a named overlay. */
  provide(name: string, overlay: BoostOverlay): void {
    this.overlays.set(name, overlay);
  }

  /** Names of the overlays provided. */
  overlayNames(): string[] {
    return [...this.overlays.keys()].sort();
  }

  /** One overlay's boosts for an agent (empty when nobody provides it). */
  overlay(name: string, agentId: string): Map<string, number> {
    return this.overlays.get(name)?.(agentId) ?? new Map();
  }

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

  /** Summed boost per node for an agent, plus the named overlays asked for (each node capped to ±MAX_NODE_BOOST). */
  map(agentId: string, overlays: readonly string[] = []): Map<string, number> {
    const out = new Map<string, number>();
    for (const e of this.entries(agentId)) out.set(e.nodeId, (out.get(e.nodeId) ?? 0) + e.weight);
    for (const name of overlays) for (const [id, w] of this.overlay(name, agentId)) if (Number.isFinite(w)) out.set(id, (out.get(id) ?? 0) + w);
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
