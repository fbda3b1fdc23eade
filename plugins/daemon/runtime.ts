/** What the daemon plugin's verbs share: the daemon, the alert book and the auto-ingest runner. */
import type { AlertBook } from './alert-book.ts';
import type { AutoIngest } from './auto-ingest.ts';
import type { Daemon } from './daemon.ts';

export interface DaemonRuntime {
  daemon: Daemon;
  alerts: AlertBook;
  autoIngest: AutoIngest;
}
