import assert from 'node:assert/strict';
import { startHost } from '../../../core/index.ts';
import { connect, memoryLogger, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

/** A fixture repository ingested by one server, closed: the next server finds its stored graph. */
async function ingestedFixture(): Promise<{ ws: string; nodes: number }> {
  const ws = writeFixtureRepo(tempDir());
  const writer = await connect({ workspaceRoot: ws });
  const ingested = (await writer.call('ingest', { agent_id: 'w', path: '.' })).json as { nodes: number };
  await writer.close();
  return { ws, nodes: ingested.nodes };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the stored graph loads in the background', function () {
  this.timeout(60000);

  it('is not loaded at start-up; the first graph verb waits for it, with progress, and answers from it', async () => {
    const { ws } = await ingestedFixture();
    const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
    try {
      // Nothing has asked for the graph yet: the engine holds no node.
      const engine = (host.current.services.get('graph')?.impl as { engine: { graph: { nodeCount: number } } }).engine;
      assert.equal(engine.graph.nodeCount, 0, 'the stored graph is not loaded before the server is ready');
      const progress: [number, number | undefined, string | undefined][] = [];
      const result = await host.call('impact', { agent_id: 'a', node_id: 'function:src/math.ts#add', direction: 'reverse' }, {
        sendProgress: async (done, total, message) => void progress.push([done, total, message]),
      });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      const text = result.content[0].type === 'text' ? result.content[0].text : '';
      assert.match(text, /src\/cart\.ts/, 'impact answers from the loaded graph (cart.ts calls add)');
      assert.deepEqual(progress, [
        [0, 1, 'graph: loading the stored graph'],
        [1, 1, 'graph: stored graph loaded'],
      ]);
      assert.ok(engine.graph.nodeCount > 0);
    } finally {
      await host.close();
    }
  });

  it('lets verbs that do not use the graph answer without progress, and health report the loaded graph', async () => {
    const { ws, nodes } = await ingestedFixture();
    const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
    try {
      const progress: string[] = [];
      const result = await host.call('health', { agent_id: 'a' }, { sendProgress: async (_d, _t, m) => void progress.push(String(m)) });
      const health = JSON.parse(result.content[0].type === 'text' ? result.content[0].text : '{}');
      assert.deepEqual(progress, [], 'health is a host verb: no graph progress');
      assert.equal(health.graph.loaded, true);
      assert.equal(health.graph.node_count, nodes);
    } finally {
      await host.close();
    }
  });

  it('warms the indexes in a quiet moment after the load: only once no call has run for a while, then does start', async () => {
    const { ws } = await ingestedFixture();
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
