import assert from 'node:assert/strict';
import { startHost } from '../../../core/index.ts';
import { connect, memoryLogger, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the index warm-up after a load', function () {
  this.timeout(60000);

  it('waits for a quiet moment: it starts only once no call has run for a while, then does start', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'w', path: '.' });
    await writer.close();

    const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
    try {
      const engine = (host.current.services.get('graph')?.impl as { engine: { warmIndexes(): Promise<void> } }).engine;
      const warm = engine.warmIndexes.bind(engine);
      let warmedAt = 0;
      engine.warmIndexes = () => {
        warmedAt = performance.now();
        return warm();
      };
      // An agent's first calls, one after another with short pauses (the load happens under the first).
      let lastEnd = 0;
      for (let i = 0; i < 8; i++) {
        const r = i % 2 ? await host.call('health', { agent_id: 'a' }) : await host.call('impact', { agent_id: 'a', node_id: 'function:src/math.ts#add', direction: 'reverse' });
        assert.equal(r.isError, undefined, JSON.stringify(r.content));
        lastEnd = performance.now();
        assert.equal(warmedAt, 0, `the warm-up started while the agent was calling (call ${i})`);
        await sleep(100);
      }
      for (let waited = 0; warmedAt === 0 && waited < 5000; waited += 50) await sleep(50);
      assert.ok(warmedAt > 0, 'the warm-up never started');
      assert.ok(warmedAt - lastEnd >= 240, `started ${Math.round(warmedAt - lastEnd)} ms after the last call`);
      const seek = await host.call('seek', { agent_id: 'a', query: 'add numbers' });
      assert.equal(seek.isError, undefined);
    } finally {
      await host.close();
    }
  });
});
