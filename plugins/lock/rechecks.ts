/** Lock re-checks in flight, per store. */
// Re-checks run after a call has answered (the afterCall hook is synchronous); a lock verb that reads
// a lock first waits for the ones in flight on its store, so it sees the events they record.
const inFlight = new WeakMap<object, Promise<unknown>>();

/** Runs a re-check after those already in flight on the same store. */
export function trackRecheck(store: object, run: () => Promise<unknown>): Promise<unknown> {
  const next = (inFlight.get(store) ?? Promise.resolve()).then(run, run);
  inFlight.set(store, next.catch(() => undefined));
  return next;
}

/** Resolves when the re-checks started so far on this store are done. */
export async function rechecksSettled(store: object): Promise<void> {
  await inFlight.get(store);
}
