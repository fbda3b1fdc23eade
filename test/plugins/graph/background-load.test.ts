import assert from 'node:assert/strict';
import { startHost } from '../../../core/index.ts';
import { connect, memoryLogger, tempDir } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

describe('the stored graph loads in the background', function () {
  this.timeout(60000);

  it('is not loaded at start-up; the first graph verb waits for it, with progress, and answers from it', async () => {
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    await writer.call('ingest', { agent_id: 'w', path: '.' });
    await writer.close();

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
    const ws = writeFixtureRepo(tempDir());
    const writer = await connect({ workspaceRoot: ws });
    const ingested = (await writer.call('ingest', { agent_id: 'w', path: '.' })).json;
    await writer.close();

    const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
    try {
      const progress: string[] = [];
      const result = await host.call('health', { agent_id: 'a' }, { sendProgress: async (_d, _t, m) => void progress.push(String(m)) });
      const health = JSON.parse(result.content[0].type === 'text' ? result.content[0].text : '{}');
      assert.deepEqual(progress, [], 'health is a host verb: no graph progress');
      assert.equal(health.graph.loaded, true);
      assert.equal(health.graph.node_count, ingested.nodes);
    } finally {
      await host.close();
    }
  });
});
