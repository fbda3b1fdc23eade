import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connect, memoryLogger, tempDir, type Harness } from '../helpers/mcp.ts';
import { watchForReload, type DevWatcher } from '../../core/dev.ts';
import type { ReloadReport } from '../../core/index.ts';

const CORE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/index.ts');

function pluginSource(verbs: string[], extra = ''): string {
  return `import { AgentId, definePlugin, Type } from ${JSON.stringify(CORE)};
${extra}
export default definePlugin({
  name: 'live',
  version: '1.0.0',
  apply(ctx) {
${verbs.map((v) => `    ctx.registerVerb({ name: '${v}', description: 'Live verb ${v}.', input: Type.Object({ agent_id: AgentId, wait_ms: Type.Integer({ default: 0 }) }), tiers: ['essential'], effect: 'read', handler: async (a) => { await new Promise((r) => setTimeout(r, a.wait_ms)); return { verb: '${v}', version: VERSION }; } });`).join('\n')}
  },
});
`;
}

describe('hot reload (m1nd dev)', function () {
  this.timeout(30000);
  let ws: string;
  let file: string;
  let h: Harness;
  let watcher: DevWatcher;
  let listChanged = 0;
  const reports: ReloadReport[] = [];
  const nextReport = () => new Promise<ReloadReport>((resolve) => {
    const n = reports.length;
    const t = setInterval(() => {
      if (reports.length > n) {
        clearInterval(t);
        resolve(reports[reports.length - 1]);
      }
    }, 20);
  });

  before(async () => {
    ws = tempDir();
    fs.mkdirSync(path.join(ws, 'plugins', 'live'), { recursive: true });
    file = path.join(ws, 'plugins', 'live', 'index.ts');
    fs.writeFileSync(path.join(ws, 'plugins', 'live', 'version.ts'), `export const V = 1;\n`);
    fs.writeFileSync(file, pluginSource(['live_one'], `import { V as VERSION } from './version.ts';`));
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `import { defineConfig } from ${JSON.stringify(CORE)};\nexport default defineConfig({ plugins: { dirs: ['./plugins'] } });\n`);
    h = await connect({ workspaceRoot: ws });
    h.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    watcher = watchForReload(h.host, { log: memoryLogger(), debounceMs: 100, onReload: (r) => reports.push(r) });
    await watcher.ready;
  });
  after(async () => {
    await watcher.close();
    await h.close();
  });

  it('adds a verb on a file write: exactly one list_changed, and the client sees the verb', async () => {
    const done = nextReport();
    fs.writeFileSync(file, pluginSource(['live_one', 'live_two'], `import { V as VERSION } from './version.ts';`));
    const report = await done;
    assert.equal(report.ok, true);
    assert.deepEqual(report.added, ['live_two']);
    // Wait for the notification (timers run late on a loaded machine), then a little longer for a second one.
    for (let i = 0; i < 50 && listChanged === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(listChanged, 1);
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('live_two'));
    assert.equal((await h.call('live_two', { agent_id: 'a' })).json.verb, 'live_two');
  });

  it('serves fresh code after an edit to a file the plugin imports (no stale module cache)', async () => {
    const done = nextReport();
    fs.writeFileSync(path.join(ws, 'plugins', 'live', 'version.ts'), `export const V = 2;\n`);
    assert.equal((await done).ok, true);
    assert.equal((await h.call('live_one', { agent_id: 'a' })).json.version, 2);
  });

  it('keeps the old generation serving when a plugin breaks, and reports the error in health', async () => {
    const before = h.host.current.id;
    const calls = listChanged;
    const done = nextReport();
    fs.writeFileSync(file, pluginSource(['live_one'], `import { V as VERSION } from './version.ts';\nthrow new Error('syntax slip');`));
    const report = await done;
    assert.equal(report.ok, false);
    assert.match(report.error ?? '', /syntax slip/);
    assert.equal(h.host.current.id, before);
    assert.equal((await h.call('live_two', { agent_id: 'a' })).json.verb, 'live_two', 'last good generation still serves');
    const health = (await h.call('health', { agent_id: 'a' })).json;
    assert.equal(health.status, 'degraded');
    assert.match(health.generation.last_reload_error.error, /syntax slip/);
    assert.match(health.status_reasons.join(' '), /hot reload .* failed .*syntax slip/);
    const doctor = (await h.call('doctor', { agent_id: 'a' })).json;
    assert.equal(doctor.status, 'attention', 'doctor agrees with health');
    assert.match(doctor.findings.find((f: { check: string }) => f.check === 'server_status').detail, /degraded: .*syntax slip/);
    assert.equal(listChanged, calls, 'no list_changed for a failed reload');
  });

  it('recovers when the plugin is fixed', async () => {
    const done = nextReport();
    fs.writeFileSync(file, pluginSource(['live_one', 'live_three'], `import { V as VERSION } from './version.ts';`));
    const report = await done;
    assert.equal(report.ok, true);
    assert.deepEqual(report.added, ['live_three']);
    assert.deepEqual(report.removed, ['live_two']);
    const health = (await h.call('health', { agent_id: 'a' })).json;
    assert.equal(health.generation.last_reload_error, undefined);
    assert.equal(health.status, 'ok');
    assert.equal((await h.call('doctor', { agent_id: 'a' })).json.findings.find((f: { check: string }) => f.check === 'server_status').ok, true);
  });

  it('lets a call in flight during a reload complete on the generation it started on', async () => {
    const started = h.host.current.id;
    const inflight = h.call('live_one', { agent_id: 'a', wait_ms: 700 });
    await new Promise((r) => setTimeout(r, 50));
    const done = nextReport();
    fs.writeFileSync(file, pluginSource(['live_one'], `const VERSION = 'new';`));
    assert.equal((await done).ok, true);
    assert.notEqual(h.host.current.id, started);
    const { json } = await inflight;
    assert.equal(json.version, 2, 'the in-flight call ran the old code to the end');
    assert.equal((await h.call('live_one', { agent_id: 'a' })).json.version, 'new');
  });
});
