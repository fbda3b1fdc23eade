/**
 * A watched folder deleted entirely (rm -rf, a branch switch, a move) and created again: the
 * daemon says it lost it, and watches it again once it is back — its files taken in, the deletion
 * alerts of files that came back resolved — without a tick.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Host } from '../../../core/index.ts';
import { clientSink, createLogger } from '../../../core/log.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { until } from '../../helpers/until.ts';

async function serve(ws: string): Promise<Harness> {
  let host: Host | undefined;
  const log = createLogger(clientSink('warn', (level, logger, data, fallback, audience) => host?.broadcastLog(level, logger, data, fallback, audience)));
  const h = await connect({ workspaceRoot: ws, log, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: `${ws}-cache` }, config: { options: { graph: { watch: false, typeCheck: false } } } });
  host = h.host;
  return h;
}

describe('daemon: a watched folder deleted and created again', function () {
  this.timeout(120_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const [label, watched, removed] of [
    ['the watched folder itself', 'src', 'src'],
    ['a parent of the watched folder', 'py/pkg', 'py'],
  ] as const) {
    it(`watches it again once it is back, when ${label} was removed`, async () => {
      const ws = writeFixtureRepo(tempDir('m1nd-watch-root-'));
      fs.mkdirSync(path.join(ws, 'py/pkg'), { recursive: true });
      fs.writeFileSync(path.join(ws, 'py/pkg/tool.py'), 'def tool():\n    return 1\n');
      h = await serve(ws);
      await h.call('ingest', { agent_id: 'a', path: ws });
      const files = fs.readdirSync(path.join(ws, watched));
      const saved = Object.fromEntries(files.map((f) => [f, fs.readFileSync(path.join(ws, watched, f), 'utf8')]));
      await h.call('daemon_start', { agent_id: 'a', watch_paths: [watched], poll_interval_ms: 100 });

      fs.rmSync(path.join(ws, removed), { recursive: true });
      const deleted = await until(async () => {
        const list = (await h!.call('alerts_list', { agent_id: 'a' })).json.alerts.filter((x: any) => x.kind === 'file_deleted');
        return list.length === files.length && list;
      }, 20_000, 'the deletions');
      assert.deepEqual(deleted.map((x: any) => x.path).sort(), files.map((f) => `${watched}/${f}`).sort());
      const lost = (await h.call('daemon_status', { agent_id: 'a' })).json;
      assert.match(lost.watch_error ?? '', new RegExp(`${watched} .*deleted`), JSON.stringify(lost));

      // Back, with its files and a new one: taken in by the watcher, no tick called.
      fs.mkdirSync(path.join(ws, watched), { recursive: true });
      for (const [f, text] of Object.entries(saved)) fs.writeFileSync(path.join(ws, watched, f), text);
      fs.writeFileSync(path.join(ws, watched, 'extra.ts'), 'export const extra = 1;\n');
      await until(async () => (await h!.call('alerts_list', { agent_id: 'a' })).json.total === 0, 20_000, 'the deletions resolved');
      const back = await until(async () => {
        const s = (await h!.call('daemon_status', { agent_id: 'a' })).json;
        return s.counters.reingested >= files.length + 1 && s;
      }, 20_000, 'the files taken in');
      assert.equal(back.watch_error, undefined);
      assert.equal(back.watching, true);

      // And watched from then on.
      const before = back.counters.reingested;
      fs.appendFileSync(path.join(ws, watched, 'extra.ts'), 'export const more = 2;\n');
      await until(async () => (await h!.call('daemon_status', { agent_id: 'a' })).json.counters.reingested === before + 1, 20_000, 'a later edit');
    });
  }

  it('resumes after a restart when a watched folder was deleted while the server was down, and watches it once it is back', async () => {
    const ws = writeFixtureRepo(tempDir('m1nd-watch-root-'));
    h = await serve(ws);
    await h.call('ingest', { agent_id: 'a', path: ws });
    await h.call('daemon_start', { agent_id: 'a', watch_paths: ['src', 'go'], poll_interval_ms: 100 });
    await h.close();
    const go = fs.readdirSync(path.join(ws, 'go'));
    fs.rmSync(path.join(ws, 'go'), { recursive: true });
    h = await serve(ws);
    const resumed = await until(async () => {
      const s = (await h!.call('daemon_status', { agent_id: 'a' })).json;
      return s.last_cycle?.trigger === 'resume' && s;
    }, 30_000, 'the daemon to resume');
    assert.equal(resumed.watching, true, JSON.stringify(resumed));
    assert.match(resumed.watch_error, /go .*deleted/);
    assert.equal(resumed.last_error, undefined);
    const deleted = (await h.call('alerts_list', { agent_id: 'a' })).json.alerts.filter((x: any) => x.kind === 'file_deleted').map((x: any) => x.path);
    assert.deepEqual(deleted.sort(), go.map((f) => `go/${f}`).sort());
    // The other watched folder is watched all along.
    fs.writeFileSync(path.join(ws, 'src/extra.ts'), 'export const extra = 1;\n');
    await until(async () => (await h!.call('daemon_status', { agent_id: 'a' })).json.counters.reingested >= 1, 20_000, 'an edit in src');
    fs.mkdirSync(path.join(ws, 'go'));
    fs.writeFileSync(path.join(ws, 'go/extra.go'), 'package main\n\nfunc Extra() int { return 1 }\n');
    await until(async () => (await h!.call('daemon_status', { agent_id: 'a' })).json.counters.reingested >= 2, 20_000, 'the folder watched again');
    assert.equal((await h.call('daemon_status', { agent_id: 'a' })).json.watch_error, undefined);
  });
});
