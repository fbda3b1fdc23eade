/**
 * The `runtime_heat` boost overlay (the graph's BoostBook seam): for an agent, the workspace overlay
 * and the agent's own, each giving its hottest node the overlay's boost_strength and the others in
 * proportion to their decayed heat. Applied only by a ranking call that asks for it
 * (`runtime_heat: true` on seek, activate, panoramic).
 */
import { decayed, readOverlay, type OverlayPlace } from './overlay-book.ts';

export const HEAT_OVERLAY = 'runtime_heat';
/** Boost of the hottest node when an overlay names no strength. */
export const DEFAULT_BOOST_STRENGTH = 0.15;
/** Nodes of one overlay that get a boost (the hottest). */
const BOOSTED_NODES = 200;

/** node id → boost for an agent. */
export function heatBoosts(place: OverlayPlace, agentId: string): Map<string, number> {
  const now = Date.now();
  const out = new Map<string, number>();
  for (const key of ['workspace', `agent:${agentId}`]) {
    const overlay = readOverlay(place, key, true);
    const strength = overlay?.boost_strength ?? DEFAULT_BOOST_STRENGTH;
    if (!overlay || strength <= 0) continue;
    const hot = Object.entries(overlay.nodes)
      .map(([id, h]) => [id, decayed(h, now, overlay.half_life_hours)] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, BOOSTED_NODES);
    const top = hot[0]?.[1] ?? 0;
    if (top <= 0) continue;
    for (const [id, heat] of hot) out.set(id, (out.get(id) ?? 0) + (strength * heat) / top);
  }
  return out;
}
