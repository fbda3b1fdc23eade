/**
 * Where the federation lives: the workspace store (`engine.memory`, namespace `federation`, key
 * `current`): the repositories, their sizes, and the cross-repository edges. Each repository's own
 * graph is stored under `<store dir>/federation/<name>` (never inside the other repository).
 */
import type { GraphService } from '../graph/api.ts';
import type { CrossEdge } from './cross-edges.ts';

export const NAMESPACE = 'federation';

export interface FederationRecord {
  federated_at: number;
  /** Each repository's own nodes and edges; `nested`: the files and nodes of its graph under members nested in it, counted for them. */
  repos: { name: string; root: string; nodes: number; edges: number; packages: string[]; nested?: { repo: string; folder: string; files: number; nodes: number }[] }[];
  cross_edges: CrossEdge[];
}

/** Stores the federation (false on a read-only server). */
export function saveFederation(graph: GraphService, record: FederationRecord): boolean {
  if (!graph.writable || !graph.engine.storeExists()) return false;
  graph.engine.memory.set(NAMESPACE, 'current', record);
  return true;
}

/** The stored federation, or undefined. */
export function loadFederation(graph: GraphService): FederationRecord | undefined {
  if (!graph.engine.storeExists()) return undefined;
  return graph.engine.memory.get<FederationRecord>(NAMESPACE, 'current')?.value;
}
