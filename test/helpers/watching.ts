/**
 * The native watcher can drop an event under load (@parcel/watcher 2.6.0 did in some runs of the
 * daemon bench at 10,000 files; upstream parcel-bundler/watcher#183). Tests of what recovers from
 * that make the loss happen on purpose: every event for a path ending in one of `suffixes` is taken
 * out of the batches the watcher hands to its callbacks. Servers connected in this process share
 * the module, so it applies to their watchers started from now on. Returns the undo.
 */
import { createRequire } from 'node:module';

type Callback = (error: Error | null, events: { path: string }[]) => void;

export function dropWatcherEvents(...suffixes: string[]): () => void {
  const parcel = createRequire(import.meta.url)('@parcel/watcher');
  const subscribe = parcel.subscribe;
  parcel.subscribe = (dir: string, fn: Callback, opts: unknown) => subscribe(dir, ((error, events) => fn(error, events.filter((e) => !suffixes.some((s) => e.path.endsWith(s))))) as Callback, opts);
  return () => {
    parcel.subscribe = subscribe;
  };
}
