import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

/** Visits are what the agent was sent: a result cut by max_output_chars records only what it kept. */
describe('visits: only what a capped result shows', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, 'src'));
    const fns = Array.from({ length: 20 }, (_, i) => `export function f${i}(): number {\n  return ${i};\n}\n`).join('\n');
    fs.writeFileSync(path.join(ws, 'src/many.ts'), fns);
    for (const n of ['a', 'b', 'c']) fs.writeFileSync(path.join(ws, `src/${n}.ts`), `// needle in ${n}\nexport const ${n} = 1;\n`);
    h = await connect({ workspaceRoot: ws });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('search cut by max_output_chars records only the files of the matches it sent', async () => {
    const { json } = await h.call('search', { agent_id: 's1', query: 'needle', max_output_chars: 100 });
    assert.equal(json.truncated, true);
    const sent = [...new Set(json.matches.map((m: { path: string }) => m.path))];
    assert.equal(sent.length, 1);
    const cov = (await h.call('coverage_session', { agent_id: 's1' })).json;
    assert.equal(cov.files.visited, 1);
    const stale = (await h.call('am_i_stale', { agent_id: 's1' })).json;
    assert.deepEqual(stale.fresh, sent);
  });

  it('view cut by max_output_chars says which lines it holds and records only their symbols', async () => {
    const { json } = await h.call('view', { agent_id: 's2', file_path: 'src/many.ts', max_output_chars: 100 });
    const shown = json.content.split('\n');
    const lastShown = Number(shown[shown.length - 1].split('│')[0]);
    assert.ok(lastShown < 10, `a 100-character cap holds a few lines (${lastShown})`);
    assert.deepEqual(json.lines, [1, lastShown]);
    assert.equal(json.next_offset, lastShown, 'the next window starts after the last line held');
    const listed = json.symbols.map((s: { label: string }) => s.label);
    assert.ok(listed.length >= 1 && listed.length <= 3, JSON.stringify(listed));
    const cov = (await h.call('coverage_session', { agent_id: 's2' })).json;
    assert.equal(cov.symbols.visited, listed.length);
  });
});
