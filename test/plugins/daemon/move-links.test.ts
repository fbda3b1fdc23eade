import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};

describe('daemon: document links across a move', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('raises binding_broken only for links the move broke: a link by name the relink re-bound to the moved symbol holds', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-move-links-'));
    fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
    // One link by path (breaks when the file moves) and one by name (follows the symbol).
    fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nThe cart adds prices with [math](../src/math.ts).\n\n## Totals\n\nSee `total` for the sum.\n');
    const old = new Date(Date.now() - 3600_000);
    for (const f of fs.readdirSync(ws, { recursive: true }) as string[]) fs.utimesSync(path.join(ws, f), old, old);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
    ok(await h.call('ingest', { agent_id: 'a', path: ws }));
    ok(await h.call('daemon_start', { agent_id: 'a', poll_interval_ms: 60000 }));
    fs.mkdirSync(path.join(ws, 'lib'));
    fs.renameSync(path.join(ws, 'src/cart.ts'), path.join(ws, 'lib/cart.ts'));
    fs.renameSync(path.join(ws, 'src/math.ts'), path.join(ws, 'lib/math.ts'));
    const tick = ok(await h.call('daemon_tick', { agent_id: 'a', max_files: 100 }));
    assert.deepEqual(
      tick.moved.map((m: any) => `${m.from}>${m.to}`).sort(),
      ['src/cart.ts>lib/cart.ts', 'src/math.ts>lib/math.ts'],
    );
    // The guide's section now documents lib/cart.ts#total: that link held.
    const impact = ok(await h.call('impact', { agent_id: 'a', node_id: 'function:lib/cart.ts#total', direction: 'reverse', max_depth: 1, detail: 'full' }));
    assert.ok(JSON.stringify(impact).includes('section:docs/guide.md'), `the relink re-bound the name: ${JSON.stringify(impact).slice(0, 400)}`);
    const broken = ok(await h.call('alerts_list', { agent_id: 'a' })).alerts.filter((a: any) => a.kind === 'binding_broken');
    assert.deepEqual(
      broken.map((a: any) => a.details.target),
      ['file:src/math.ts'],
      `only the path link broke: ${JSON.stringify(broken.map((a: any) => a.message))}`,
    );
    assert.match(broken[0].message, /links to file:src\/math\.ts, which moved to lib\/math\.ts/);
  });
});
