/**
 * The runtime plugin's public entry: what other plugins may read of the stored runtime overlay
 * (heat, span and error counts per node, per scope `workspace` or `agent:<id>`).
 */
export { decayed, loadOverlay, NAMESPACE as RUNTIME_NAMESPACE } from './overlay-book.ts';
export type { NodeHeat, Overlay } from './overlay-book.ts';
