/**
 * A restarted server's first `apply` of a language re-ingests the written file on the main thread
 * (its parse workers are not running), which makes the main thread's extractor for the language.
 * Its query used to compile in one call (Python 105–220 ms) while every session's requests waited;
 * it compiles in chunks now, one per turn of the loop.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../helpers/mcp.ts';

const here = dirname(fileURLToPath(import.meta.url));

function run(mode: string, ws: string): any {
  const out = spawnSync(process.execPath, ['--import', 'tsx', join(here, 'children', 'first-apply.ts'), mode, ws], { encoding: 'utf8', timeout: 170_000 });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout.trim().split('\n').pop()!);
}

describe("a restarted server's first apply of a language", function () {
  this.timeout(240_000);
  let ws: string;
  before(() => {
    ws = tempDir();
    fs.mkdirSync(join(ws, 'pkg'));
    for (let i = 0; i < 60; i++) {
      const next = (i + 1) % 60;
      fs.writeFileSync(join(ws, 'pkg', `m${i}.py`), `from pkg.m${next} import f${next}\n\nclass C${i}:\n    def run(self, x: int) -> int:\n        return x + ${i}\n\ndef f${i}(x):\n    return C${i}().run(x)\n`);
    }
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  it('re-ingests the written Python file without holding the event loop over 50 ms while its extractor is made', () => {
    const ingested = run('ingest', ws);
    assert.deepEqual(ingested, { isError: false, parsed: 60 });
    const r = run('apply', ws);
    assert.equal(r.isError, false);
    assert.deepEqual(r.added, ['function:pkg/m0.py#added']);
    assert.ok(r.pings > 5, `the pings were answered while the apply ran (${r.pings})`);
    assert.ok(r.longest < 50, `a ping waited on ${r.longest.toFixed(1)} ms of the server's main-thread work`);
  });
});
