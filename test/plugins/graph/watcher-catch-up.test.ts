import { strict as assert } from 'node:assert';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';
import { connectWatching } from '../../helpers/watching.ts';

// Found by driving memory verbs across restarts: three lines inserted above a function while no
// server ran left every graph answer on the old lines, 15 s after the next start and for good.
describe('the graph watcher: edits made while no server ran', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('takes in a file edited, one added and one deleted between the last ingest and the next start', async () => {
    const ws = tempDir('m1nd-catch-up-');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/math.ts'), 'export function addPrices(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFileSync(join(ws, 'src/gone.ts'), 'export function goneSoonFn(): number {\n  return 0;\n}\n');
    let served = await connectWatching(ws);
    h = served.h;
    await served.call('ingest', { path: '.' });
    await h.close();
    h = undefined;

    // While no server runs.
    await new Promise((r) => setTimeout(r, 50)); // a later mtime than the ingest's
    writeFileSync(join(ws, 'src/math.ts'), '// moved down\n// by three\n// lines\nexport function addPrices(a: number, b: number): number {\n  return a + b;\n}\n');
    appendFileSync(join(ws, 'src/math.ts'), '\nexport function whileDownFn(): number {\n  return 2;\n}\n');
    writeFileSync(join(ws, 'src/added.ts'), 'export function addedWhileDownFn(): number {\n  return 1;\n}\n');
    rmSync(join(ws, 'src/gone.ts'));

    served = await connectWatching(ws);
    h = served.h;
    const { call } = served;
    const seek = async (name: string) => (await call('seek', { query: name })).results as { node_id?: string; id?: string; lines?: number[] }[];
    const inGraph = async (name: string) => JSON.stringify(await seek(name)).includes(`#${name}`);
    // No edit happens from here on: only the start-up reconciliation can find these.
    await until(async () => (await inGraph('whileDownFn')) && (await inGraph('addedWhileDownFn')) && !(await inGraph('goneSoonFn')), 20_000, 'the start-up reconciliation');
    const { json } = await h.call('impact', { agent_id: 'a', node_id: 'addPrices', direction: 'reverse' });
    assert.deepEqual(json.node.lines, [4, 6], JSON.stringify(json.node));
  });
});
