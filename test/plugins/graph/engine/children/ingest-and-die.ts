/**
 * Child process: runs a full ingest with a slow fake parser. Mode "parse" prints PARSING after the
 * first file (the parent kills it); mode "persist" SIGKILLs itself at the first commit progress: while
 * it streams rows to the store's commit worker (a run this large commits there), or inside the
 * transaction when the commit runs on the main connection.
 */
import { CodeGraphEngine } from '../../../../../plugins/graph/engine/engine.ts';
import { fakeParser } from '../fake-parser.ts';

const [root, storeDir, mode] = process.argv.slice(2);
let announced = false;
const parser = fakeParser(mode === 'parse' ? 20 : 0, () => {
  if (!announced && mode === 'parse') {
    announced = true;
    process.stdout.write('PARSING\n');
  }
});
const engine = new CodeGraphEngine({ root, storeDir, parser });
await engine.open();
await engine.ingest({
  onProgress: (done, _total, phase) => {
    // Rows are on their way to the store, or written but not committed.
    if (mode === 'persist' && phase === 'persist' && done > 0) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('FINISHED\n');
