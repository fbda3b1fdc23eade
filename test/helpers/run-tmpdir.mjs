/**
 * Loaded before the specs (.mocharc.json `node-option`) and by bench/run.ts: every temporary directory of a run —
 * the helpers' workspaces, stores and caches, and those of the servers and children the tests
 * spawn (they inherit TMPDIR) — goes under one directory of this run, removed when the run's
 * process exits. Without it each run left hundreds of directories in the system's temp folder.
 * M1ND_TEST_KEEP_TMP=1 keeps them (the run directory is printed) to look at after a failure.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const run = mkdtempSync(join(tmpdir(), 'm1nd-run-'));
// Traversable by other users (not listable): the throw-away PostgreSQL runs as its own user in a
// directory of its own below (test/helpers/pg.ts); every directory in here is mkdtemp's 0700.
chmodSync(run, 0o711);
// os.tmpdir() reads TMPDIR on every call (POSIX), so each later mkdtemp lands here.
process.env.TMPDIR = run;
if (process.env.M1ND_TEST_KEEP_TMP) {
  process.stderr.write(`test temp directories kept in ${run}\n`);
} else {
  process.on('exit', () => {
    try {
      rmSync(run, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
    } catch {
      // A child still writing there: the system's temp cleaning takes the rest.
    }
  });
}
