/**
 * Child process: runs a full ingest with a slow fake parser. Mode "parse" prints PARSING after the
 * first file (the parent kills it); mode "persist" SIGKILLs itself from inside the store transaction.
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
    // Inside the transaction: rows are written but not committed.
    if (mode === 'persist' && phase === 'persist' && done > 0) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('FINISHED\n');
