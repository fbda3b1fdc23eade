/** What the daemon plugin's verbs share: the daemon, the alert book and the auto-ingest runner. */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { AlertBook } from './alert-book.ts';
import type { AutoIngest } from './auto-ingest.ts';
import type { Daemon } from './daemon.ts';

export interface DaemonRuntime {
  daemon: Daemon;
  alerts: AlertBook;
  autoIngest: AutoIngest;
  /** False on a read-only server: nothing that persists may run. */
  writable: boolean;
}

/** Refuses a verb that would persist state on a read-only server. */
export function refuseReadOnly(rt: DaemonRuntime, verb: string, what: string): void {
  if (rt.writable) return;
  throw new M1ndError(ErrorCodes.GATE_READ_ONLY, `${verb} persists ${what}, and this server is read-only`, {
    hint: 'restart the server without --read-only / M1ND_READ_ONLY to run it; alerts_list and the *_status verbs still read',
  });
}
