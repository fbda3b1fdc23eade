/**
 * A process that embeds the host exits once the host is closed: the worker threads it used (parse
 * pool, commit worker, facts pool, token counter) are referenced only while they have work. Adding a
 * 'message' listener references a Node 20 worker again, which once kept such a process up until
 * every pool's idle timeout (30 s).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Enough Python files for the ingest's parse pool and the structure facts pool (48 each). */
function pythonRepo(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'm1nd-exit-'));
  for (let i = 0; i < 60; i++) {
    writeFileSync(path.join(root, `m${i}.py`), `import os\n\n\ndef f${i}(x):\n    y = x + ${i}\n    for k in range(y):\n        print(k, os.sep)\n    return y\n\n\nclass C${i}:\n    def m(self, a):\n        return f${i}(a) * 2\n`);
  }
  return root;
}

describe('process exit after the host closes', function () {
  this.timeout(120_000);

  it('a process that ingested with parse workers and ran a cold twins on facts workers exits within seconds of close', async () => {
    const root = pythonRepo();
    const store = mkdtempSync(path.join(tmpdir(), 'm1nd-exit-store-'));
    const script = `
      import { startHost } from './core/index.ts';
      import { createLogger } from './core/log.ts';
      const host = await startHost({
        workspaceRoot: ${JSON.stringify(root)},
        config: { options: { graph: { watch: false, parseWorkers: 2, typeCheck: false }, structure: { backgroundFacts: false } } },
        env: { M1ND_STORE_DIR: ${JSON.stringify(store)}, M1ND_TOOL_TIER: 'full' },
        log: createLogger(() => {}),
      });
      const ingest = await host.call('ingest', { agent_id: 'exit', path: '.' });
      if (ingest.isError) throw new Error(ingest.content[0].text);
      const twins = await host.call('twins', { agent_id: 'exit' });
      if (twins.isError) throw new Error(twins.content[0].text);
      const { compared } = JSON.parse(twins.content[0].text);
      await host.close();
      console.log(JSON.stringify({ closedAt: Date.now(), parseWorkers: JSON.parse(ingest.content[0].text).parseWorkers ?? null, factsWorkers: compared.parse_workers }));`;
    const child = spawn(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    const exited = await new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
    assert.equal(exited.code, 0, err);
    const { closedAt, parseWorkers, factsWorkers } = JSON.parse(out.trim().split('\n').pop()!) as { closedAt: number; parseWorkers: number | null; factsWorkers: number };
    assert.ok(factsWorkers > 0, `twins used the facts workers: ${out} ${err}`);
    assert.ok(exited.at - closedAt < 10_000, `exited ${exited.at - closedAt} ms after close (the pools' idle timeout is 30 s)`);
  });
});
