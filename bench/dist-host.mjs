/**
 * A host started from the built `dist/` as `m1nd serve` starts it (the tokenizer's rank table cached
 * under `M1ND_CACHE_DIR`), over a stored graph in `storeDir`: the background facts job and the watcher
 * off, site-packages excluded (the stdlib corpus), every verb callable. For the benches that measure
 * an installed server's first calls (twins-cold-child.mjs, preview-first-call.mjs).
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export async function startDistHost(dist, root, storeDir) {
  const load = (path) => import(pathToFileURL(join(resolve(dist), path)).href);
  const { startHost } = await load('core/index.js');
  const { createLogger } = await load('core/log.js');
  const { useTokenizerCache } = await load('core/tokens.js');
  const { cacheDir } = await load('core/cache-file.js');
  useTokenizerCache(cacheDir(process.env));
  return startHost({
    workspaceRoot: root,
    config: { options: { structure: { backgroundFacts: false }, graph: { watch: false, exclude: ['site-packages/**'] } } },
    env: { M1ND_STORE_DIR: resolve(storeDir), M1ND_TOOL_TIER: 'full' },
    log: createLogger(() => {}),
  });
}
