/**
 * A counter of the event loop's iterations: an immediate re-queued from the check phase runs once per
 * iteration, after its poll phase (where requests and I/O are taken in). Not a timer: background slices
 * yield through immediates, and work quicker than a timer's 1 ms meets none.
 */
export function loopIterations(): { readonly count: number; stop(): void } {
  let count = 0;
  let running = true;
  const tick = (): void => {
    count++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    stop() {
      running = false;
    },
  };
}
