/**
 * Where runtime heat lives: overlays keyed by scope — `workspace` (shared, in the workspace store:
 * `engine.memory`, namespace `runtime`) or `agent:<id>` (the agent's own: in the store on a writable
 * server; on a read-only one, read from the store and kept in the agent's session memory). Each maps node id → counts, errors, a
 * bounded sample of durations and a decayed heat; heat halves every `half_life_hours`.
 */
import type { SessionStore } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';

export const NAMESPACE = 'runtime';
/** Durations kept per node (the most recent), for percentiles. */
export const SAMPLE = 256;
/** Nodes kept per overlay (the hottest). */
export const MAX_NODES = 5000;
/** How long a stored overlay read for ranking is reused before the store is read again. */
const READ_CACHE_MS = 2000;

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
  /** Boost of the hottest node when a ranking verb asks for runtime heat (others in proportion). */
  boost_strength?: number;
  nodes: Record<string, NodeHeat>;
}

/** Where overlays are read and written for one call: the graph service and the session store. */
export interface OverlayPlace {
  graph: GraphService;
  session: SessionStore;
}

const SESSION_KEY = 'runtime:overlay';
const sessionSlot = (place: OverlayPlace, key: string) => (key.startsWith('agent:') ? place.session.state(key.slice(6), SESSION_KEY, () => ({ overlay: undefined as Overlay | undefined })) : null);
const inStore = (place: OverlayPlace, key: string) => place.graph.writable || !key.startsWith('agent:');

/** Stored overlays read for ranking, per store. */
const readCache = new WeakMap<object, Map<string, { at: number; overlay: Overlay | undefined }>>();

function storedOverlay(place: OverlayPlace, key: string, cached: boolean): Overlay | undefined {
  const engine = place.graph.engine;
  if (!engine.storeExists()) return undefined;
  let cache = readCache.get(engine);
  if (!cache) readCache.set(engine, (cache = new Map()));
  const hit = cache.get(key);
  if (cached && hit && Date.now() - hit.at < READ_CACHE_MS) return hit.overlay;
  const overlay = engine.memory.get<Overlay>(NAMESPACE, key)?.value;
  cache.set(key, { at: Date.now(), overlay });
  return overlay;
}

/**
 * The overlay of a scope, or undefined (`cached`: reuse a read of the last READ_CACHE_MS, for ranking).
 * On a read-only server an agent's overlay is its session's, or else the one stored earlier.
 */
export function readOverlay(place: OverlayPlace, key: string, cached = false): Overlay | undefined {
  if (inStore(place, key)) return storedOverlay(place, key, cached);
  const own = sessionSlot(place, key)!.overlay;
  if (own) return own;
  // A fresh read (never the cached object): the caller may add to it and keep it in the session.
  return cached ? storedOverlay(place, key, true) : place.graph.engine.storeExists() ? place.graph.engine.memory.get<Overlay>(NAMESPACE, key)?.value : undefined;
}

/** The overlay of a scope (an empty one halving every `halfLife` hours when none). */
export function loadOverlay(place: OverlayPlace, key: string, halfLife: number): Overlay {
  return readOverlay(place, key) ?? { half_life_hours: halfLife, nodes: {} };
}

/** Keeps an overlay (the hottest MAX_NODES): in the store, or the agent's session on a read-only server; false when it could not be kept. */
export function saveOverlay(place: OverlayPlace, key: string, overlay: Overlay): 'store' | 'session' | false {
  const entries = Object.entries(overlay.nodes);
  if (entries.length > MAX_NODES) overlay.nodes = Object.fromEntries(entries.sort((a, b) => b[1].heat - a[1].heat).slice(0, MAX_NODES));
  if (!inStore(place, key)) {
    sessionSlot(place, key)!.overlay = overlay;
    return 'session';
  }
  const engine = place.graph.engine;
  if (!place.graph.writable || !engine.storeExists()) return false;
  engine.memory.set(NAMESPACE, key, overlay);
  readCache.get(engine)?.delete(key);
  return 'store';
}

/** Heat decayed from `at` to `now`. */
export function decayed(h: NodeHeat, now: number, halfLifeHours: number): number {
  return h.heat * Math.pow(0.5, Math.max(0, now - h.at) / (halfLifeHours * 3_600_000));
}
