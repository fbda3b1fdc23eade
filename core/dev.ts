/**
 * Dev mode: chokidar watches the plugin folders, bundles and the config file; a burst of changes
 * (debounced) builds one new generation. The host swaps it in only if it loads cleanly, and sends
 * tools/list_changed once; a failed reload keeps the last good generation serving.
 */
import { watch, type FSWatcher } from 'chokidar';
import type { Host, ReloadReport } from './host.ts';
import type { Logger } from './log.ts';

export interface DevWatcher {
  /** Resolves once the watcher has scanned its paths. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const IGNORED = /(^|[/\\])(node_modules|\.git|\.m1nd|dist)([/\\]|$)/;

/** Watches the host's reload inputs and reloads on change; `onReload` sees every report. */
export function watchForReload(host: Host, options: { debounceMs?: number; log: Logger; onReload?: (r: ReloadReport) => void }): DevWatcher {
  const debounce = options.debounceMs ?? 150;
  const watched = new Set(host.lastInput?.watchPaths ?? []);
  const watcher: FSWatcher = watch([...watched], { ignoreInitial: true, ignored: (p) => IGNORED.test(p), awaitWriteFinish: false });
  let timer: NodeJS.Timeout | undefined;
  const changed = new Set<string>();
  const fire = async () => {
    const files = [...changed];
    changed.clear();
    options.log.info(`change detected (${files.length} file${files.length === 1 ? '' : 's'}): reloading`, { files: files.slice(0, 10) });
    const report = await host.reload();
    if (report.ok) {
      options.log.info(`reload → generation ${report.generation} in ${report.elapsedMs.toFixed(0)} ms: added [${report.added.join(', ')}] removed [${report.removed.join(', ')}] changed [${report.changed.join(', ')}]`);
      // A reload can bring new plugin folders (config edits): watch them too.
      for (const p of host.lastInput?.watchPaths ?? []) {
        if (!watched.has(p)) {
          watched.add(p);
          watcher.add(p);
        }
      }
    } else {
      // host.reload logged the one failure line already (with every quarantine in it).
      options.log.debug(`reload failed, generation ${host.current.id} keeps serving`);
    }
    options.onReload?.(report);
  };
  const schedule = (file: string) => {
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => void fire(), debounce);
  };
  watcher.on('add', schedule).on('change', schedule).on('unlink', schedule).on('addDir', schedule).on('unlinkDir', schedule);
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
