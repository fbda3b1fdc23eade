import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHost, type Host } from '../../core/index.ts';
import { reloadGrowth } from '../../bench/reload-memory.ts';
import { memoryLogger, tempDir } from '../helpers/mcp.ts';

const CORE = JSON.stringify(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/index.ts'));

/** A plugin whose verb answers values from three files: the verb, a helper it imports, and a pair that import each other. */
function writePlugin(ws: string, counterKey: string): string {
  const dir = path.join(ws, 'plugins/reuse');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `export default { plugins: { dirs: ['./plugins'] } };\n`);
  // Counts its own evaluations: a re-used module runs once, a re-imported one again.
  fs.writeFileSync(path.join(dir, 'helper.ts'), `const g = globalThis as any;\ng['${counterKey}'] = (g['${counterKey}'] ?? 0) + 1;\nexport const helper = 'h1';\n`);
  fs.writeFileSync(path.join(dir, 'ping.ts'), `import { pong } from './pong.ts';\nexport const ping = () => 'ping1+' + pong();\n`);
  fs.writeFileSync(path.join(dir, 'pong.ts'), `import { ping } from './ping.ts';\nexport const pong = () => 'pong1';\nexport const loop = () => ping;\n`);
  fs.writeFileSync(path.join(dir, 'verb.ts'), verbFile(1));
  fs.writeFileSync(
    path.join(dir, 'index.ts'),
    `import { definePlugin } from ${CORE};\nimport { reuseVerb } from './verb.ts';\nexport default definePlugin({ name: 'reuse', version: '1.0.0', apply(ctx) { ctx.registerVerb(reuseVerb); } });\n`,
  );
  return dir;
}

function verbFile(n: number): string {
  return `import { AgentId, Type, defineVerb } from ${CORE};\nimport { helper } from './helper.ts';\nimport { ping } from './ping.ts';\nexport const reuseVerb = defineVerb({ name: 'reuse_now', description: 'r', input: Type.Object({ agent_id: AgentId }), tiers: ['essential'], effect: 'read', handler: () => ({ verb: ${n}, helper, ping: ping() }) });\n`;
}

describe('hot reload re-uses unchanged modules (content-versioned imports)', function () {
  this.timeout(60000);
  let host: Host;
  let dir: string;
  const key = `m1nd-reuse-evals-${process.pid}-${Date.now()}`;
  const evals = () => (globalThis as Record<string, unknown>)[key] as number;
  const answer = async () => {
    const r = await host.call('reuse_now', { agent_id: 't' });
    const { _m1nd, ...result } = JSON.parse(r.content[0]?.type === 'text' ? r.content[0].text : '{}');
    return result;
  };

  before(async () => {
    const ws = tempDir();
    dir = writePlugin(ws, key);
    host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
  });
  after(() => host.close());

  it('evaluates an unchanged helper once across reloads while the edited verb file is fresh each time', async () => {
    assert.equal(evals(), 1);
    for (let n = 2; n <= 4; n++) {
      fs.writeFileSync(path.join(dir, 'verb.ts'), verbFile(n));
      assert.equal((await host.reload()).ok, true);
      assert.deepEqual(await answer(), { verb: n, helper: 'h1', ping: 'ping1+pong1' });
    }
    assert.equal(evals(), 1, 'helper.ts was not re-evaluated');
  });

  it('re-imports the importers of an edited file, up to the plugin entry', async () => {
    fs.writeFileSync(path.join(dir, 'helper.ts'), fs.readFileSync(path.join(dir, 'helper.ts'), 'utf8').replace("'h1'", "'h2'"));
    assert.equal((await host.reload()).ok, true);
    assert.equal((await answer()).helper, 'h2');
    assert.equal(evals(), 2, 'the edited helper ran once more');
  });

  it('re-imports both sides of an import cycle when one side changes', async () => {
    fs.writeFileSync(path.join(dir, 'pong.ts'), fs.readFileSync(path.join(dir, 'pong.ts'), 'utf8').replace("'pong1'", "'pong2'"));
    assert.equal((await host.reload()).ok, true);
    assert.equal((await answer()).ping, 'ping1+pong2');
  });
});

describe('hot reload memory (child process, 30 reloads after a full GC)', function () {
  this.timeout(180000);
  it('keeps under 1.5 MB of RSS and 0.5 MB of heap per reload (re-importing every module kept ~4 MB)', async () => {
    const growth = await reloadGrowth(30);
    assert.equal(growth.lastAnswer, 33, 'the last edit is what the verb answers');
    assert.equal(growth.retiredAlive, 0, 'every retired generation was garbage-collected');
    assert.ok(growth.heapPerReloadMb < 0.5, `heap per reload ${growth.heapPerReloadMb} MB`);
    assert.ok(growth.rssPerReloadMb < 1.5, `RSS per reload ${growth.rssPerReloadMb} MB`);
  });
});
