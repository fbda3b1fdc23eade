import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

describe("timeline's co-change partners that are not nodes of the graph", function () {
  this.timeout(120000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-timeline-partners-');
    write(ws, {
      'src/app.ts': 'export function start(): number {\n  return 1;\n}\n',
      'src/legacy.ts': 'export function oldStart(): number {\n  return 0;\n}\n',
      'deploy.yml': 'stage: one\n',
      'logo.png': 'not really a png\n',
    });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'initial'], dayDate(0));
    // app.ts changes with the deploy file three times, with legacy.ts twice, with the logo once; then legacy.ts is deleted.
    touch(ws, ['src/app.ts', 'deploy.yml', 'src/legacy.ts'], 1, 'one');
    touch(ws, ['src/app.ts', 'deploy.yml', 'src/legacy.ts'], 2, 'two');
    touch(ws, ['src/app.ts', 'deploy.yml', 'logo.png'], 3, 'three');
    fs.rmSync(path.join(ws, 'src/legacy.ts'));
    git(ws, ['add', '-A'], dayDate(4));
    git(ws, ['commit', '-q', '-m', 'drop legacy'], dayDate(4));
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
  });
  after(() => h?.close());

  it('marks a deleted partner gone and a partner still on disk but without a node as not in the graph', async () => {
    const r = await h.call('timeline', { agent_id: 'a', node: 'src/app.ts', depth: 'all' });
    assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
    const by = Object.fromEntries(r.json.co_changes.map((c: any) => [c.file, [c.support, c.gone ?? null, c.in_graph ?? null]]));
    assert.deepEqual(by, { 'deploy.yml': [3, null, false], 'src/legacy.ts': [2, true, null], 'logo.png': [1, null, false] });
  });
});
