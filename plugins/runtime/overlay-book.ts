/**
 * Where runtime heat lives: the workspace store (`engine.memory`, namespace `runtime`, one row per
 * overlay scope: `workspace` or `agent:<id>`), node id → counts, errors, a bounded sample of
 * durations and a decayed heat. Heat halves every `half_life_hours`.
 */
import type { GraphService } from '../graph/api.ts';

export const NAMESPACE = 'runtime';
/** Durations kept per node (the most recent), for percentiles. */
export const SAMPLE = 256;
/** Nodes kept per overlay (the hottest). */
export const MAX_NODES = 5000;

export interface NodeHeat {
  spans: number;
  errors: number;
  /** Decayed span count as of `at`. */
  heat: number;
  at: number;
  durations: number[];
}

export interface Overlay {
  half_life_hours: number;
  nodes: Record<string, NodeHeat>;
}

/** The overlay of a scope (empty when none). */
export function loadOverlay(graph: GraphService, key: string, halfLife: number): Overlay {
  const stored = graph.engine.storeExists() ? graph.engine.memory.get<Overlay>(NAMESPACE, key)?.value : undefined;
  return stored ?? { half_life_hours: halfLife, nodes: {} };
}

/** Stores an overlay, keeping the hottest MAX_NODES; false on a read-only server. */
export function saveOverlay(graph: GraphService, key: string, overlay: Overlay): boolean {
  const entries = Object.entries(overlay.nodes);
  if (entries.length > MAX_NODES) overlay.nodes = Object.fromEntries(entries.sort((a, b) => b[1].heat - a[1].heat).slice(0, MAX_NODES));
  if (!graph.writable || !graph.engine.storeExists()) return false;
  graph.engine.memory.set(NAMESPACE, key, overlay);
  return true;
}

/** Heat decayed from `at` to `now`. */
export function decayed(h: NodeHeat, now: number, halfLifeHours: number): number {
  return h.heat * Math.pow(0.5, Math.max(0, now - h.at) / (halfLifeHours * 3_600_000));
}
