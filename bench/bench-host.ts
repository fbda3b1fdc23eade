/** Shared by the benches: percentiles, and a host serving a corpus's stored graph with a timed call. */
import { startHost } from '../core/index.ts';
import { createLogger } from '../core/log.ts';

/** A started host (startHost's result). */
export type Host = Awaited<ReturnType<typeof startHost>>;

/** Runs `verb` through the host's whole pipeline: its milliseconds and parsed JSON; throws on an error result. */
export async function timedCall(host: Host, verb: string, args: Record<string, unknown> = {}): Promise<{ ms: number; json: any }> {
  const t = performance.now();
  const r = await host.call(verb, { agent_id: 'bench', ...args });
  const ms = performance.now() - t;
  const text = (r.content as { text: string }[])[0].text;
  if (r.isError) throw new Error(`${verb} failed: ${text}`);
  return { ms, json: JSON.parse(text) };
}

/** The p-th percentile (nearest rank) of xs; NaN when there are none. */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/**
 * A host with the built-in plugins over `root`, serving the graph stored in `storeDir` (no watcher,
 * tier full), and `call`, which runs a verb through the whole pipeline, returns its milliseconds and
 * throws on an error result. The graph is loaded before this returns. `pluginOptions` are other
 * plugins' options (e.g. `{ structure: { backgroundFacts: false } }`).
 */
export async function serveStoredGraph(root: string, storeDir: string, exclude: string[], graphOptions: Record<string, unknown> = {}, pluginOptions: Record<string, unknown> = {}) {
  const host = await startHost({
    workspaceRoot: root,
    config: { options: { ...pluginOptions, graph: { watch: false, exclude, ...graphOptions } } },
    env: { M1ND_STORE_DIR: storeDir, M1ND_TOOL_TIER: 'full' },
    log: createLogger(() => {}),
  });
  const call = async (verb: string, args: Record<string, unknown>): Promise<number> => {
    const t = performance.now();
    const r = await host.call(verb, { agent_id: 'bench', ...args });
    const ms = performance.now() - t;
    if (r.isError) throw new Error(`${verb} failed: ${(r.content as { text: string }[])[0].text}`);
    return ms;
  };
  await call('health', {});
  return { host, call };
}
