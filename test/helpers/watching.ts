/** Helpers for tests of the watchers: a server with the graph's watcher on, and events lost on purpose. */
import { createRequire } from 'node:module';
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { connect, type Harness } from './mcp.ts';

/**
 * The native watcher can drop an event under load (@parcel/watcher 2.6.0 did in some runs of the
 * daemon bench at 10,000 files; upstream parcel-bundler/watcher#183). Tests of what recovers from
 * that make the loss happen on purpose: every event for a path ending in one of `suffixes` is taken
 * out of the batches the watcher hands to its callbacks. Servers connected in this process share
 * the module, so it applies to their watchers started from now on. Returns the undo.
 */

type Callback = (error: Error | null, events: { path: string }[]) => void;

export function dropWatcherEvents(...suffixes: string[]): () => void {
  const parcel = createRequire(import.meta.url)('@parcel/watcher');
  const subscribe = parcel.subscribe;
  parcel.subscribe = (dir: string, fn: Callback, opts: unknown) => subscribe(dir, ((error, events) => fn(error, events.filter((e) => !suffixes.some((s) => e.path.endsWith(s))))) as Callback, opts);
  return () => {
    parcel.subscribe = subscribe;
  };
}

/** A full-tier server on `ws` with the graph's watcher on (no checker pass), its caches beside the workspace; `call` fails the test on an error result. */
export async function connectWatching(ws: string): Promise<{ h: Harness; call: (verb: string, args?: Record<string, unknown>) => Promise<any> }> {
  const h = await connect({
    workspaceRoot: ws,
    env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: join(ws, '..', `${ws.split('/').pop()}-cache`) },
    config: { options: { graph: { watch: true, typeCheck: false } } },
  });
  const call = async (verb: string, args: Record<string, unknown> = {}) => {
    const r = await h.call(verb, { agent_id: 'a', ...args });
    assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
    return r.json as any;
  };
  return { h, call };
}
