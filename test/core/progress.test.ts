import assert from 'node:assert/strict';
import { AgentId, definePlugin, defineVerb, Type } from '../../core/index.ts';
import { connect } from '../helpers/mcp.ts';
import { writeFixtureRepo } from '../helpers/fixture-repo.ts';
import { tempDir } from '../helpers/mcp.ts';

/** A tap that reports its own 0/1, 1/1 before the handler, whose phases each count from 0 again. */
const phased = definePlugin({
  name: 'phased',
  version: '1.0.0',
  apply(ctx) {
    ctx.hooks.beforeCall.tapPromise('phased', async (call) => {
      if (call.name !== 'phased_job') return;
      await call.ctx.progress(0, 1, 'loading');
      await call.ctx.progress(1, 1, 'loaded');
    });
    ctx.registerVerb(
      defineVerb({
        name: 'phased_job',
        description: 'Two phases, each counting from zero, one count repeated.',
        input: Type.Object({ agent_id: AgentId }),
        effect: 'read',
        handler: async (_args, call) => {
          for (let i = 0; i <= 3; i++) await call.progress(i, 3, `parse ${i}/3`);
          await call.progress(3, 3, 'parse 3/3 again');
          for (let i = 0; i <= 2; i++) await call.progress(i, 2, `persist ${i}/2`);
          return { ok: true };
        },
      }),
    );
  },
});

describe('progress notifications', function () {
  it('increase across the phases of one request, whoever reports them, keeping each phase\'s message', async () => {
    const h = await connect({ plugins: [phased] });
    try {
      const seen: { progress: number; total?: number; message?: string }[] = [];
      await h.client.callTool({ name: 'phased_job', arguments: { agent_id: 'a' } }, undefined, { onprogress: (p) => void seen.push(p) });
      const values = seen.map((p) => p.progress);
      assert.ok(values.every((v, i) => i === 0 || v > values[i - 1]), `not increasing: ${values.join(', ')}`);
      assert.deepEqual(seen.map((p) => p.message), ['loading', 'loaded', 'parse 0/3', 'parse 1/3', 'parse 2/3', 'parse 3/3', 'persist 0/2', 'persist 1/2', 'persist 2/2']);
      for (const p of seen) assert.ok(p.total === undefined || p.progress <= p.total, JSON.stringify(p));
      assert.equal(seen.at(-1)!.progress, seen.at(-1)!.total, 'the last phase ends at its total');
    } finally {
      await h.close();
    }
  });

  it('increase through ingest while the stored graph is loaded first', async () => {
    const h = await connect({ workspaceRoot: writeFixtureRepo(tempDir()), env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      const values: number[] = [];
      await h.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: '.' } }, undefined, { onprogress: (p) => void values.push(p.progress) });
      assert.ok(values.length > 3);
      assert.ok(values.every((v, i) => i === 0 || v > values[i - 1]), `not increasing: ${values.join(', ')}`);
    } finally {
      await h.close();
    }
  });
});
