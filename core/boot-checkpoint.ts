/**
 * The hand-off between the bundle's CLI and its loader (core/bundle-loader.ts, which runs outside the
 * bundle): the loader leaves its code-cache writer here when this process is to write the cache, and
 * the CLI calls `bootCheckpoint` once start-up is done, so the cache holds what every start runs.
 * Process-wide through a global symbol (the bundle and dist/core/ each have a copy of this module).
 */
const BOOTED = Symbol.for('m1nd.bundleBooted');
const slot = globalThis as { [BOOTED]?: () => boolean };

/** Leaves the writer of the bundle's code cache for `bootCheckpoint` (the loader; null clears it). */
export function setBootCheckpoint(save: (() => boolean) | null): void {
  slot[BOOTED] = save ?? undefined;
}

/** Writes the bundle's code cache now if this process is to write one (once: later calls do nothing); true when written. */
export function bootCheckpoint(): boolean {
  const save = slot[BOOTED];
  slot[BOOTED] = undefined;
  return save ? save() : false;
}
