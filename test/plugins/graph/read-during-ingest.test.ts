/**
 * One server shared by agents over HTTP: while one session rebuilds the graph (a full ingest), the
 * other sessions' graph verbs answer from the graph already loaded instead of queueing behind the
 * whole ingest, stamped stale; the next call after the ingest sees the new graph.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost, type Host } from '../../../core/index.ts';
import { serveHttp, type HttpServerHandle } from '../../../core/http.ts';
import { openSession, type HttpSession } from '../../helpers/http-session.ts';
import { memoryLogger, tempDir } from '../../helpers/mcp.ts';

/** `files` Python modules calling each other: enough for a full ingest to take a few seconds. */
function pythonTree(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    const body = [`from pkg${(i + 1) % 20}.m${i + 1} import f${i + 1}`, '', `class Worker${i}:`];
    for (let m = 0; m < 12; m++) body.push(`    def step${m}(self, x):`, `        return f${i + 1}(x) + ${m}`, '');
    body.push(`def f${i}(x):`, `    return Worker${i}().step0(x) + ${i}`, '');
    fs.writeFileSync(path.join(dir, `m${i}.py`), body.join('\n'));
  }
}

const text = (r: unknown): any => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text);

describe('graph verbs of other sessions during a full ingest', function () {
  this.timeout(300000);
  let host: Host;
  let served: HttpServerHandle;
  let ingester: HttpSession;
  let reader: HttpSession;
  let ws: string;

  before(async () => {
    ws = tempDir('m1nd-read-ingest-');
    pythonTree(ws, 1500);
    host = await startHost({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() }, log: memoryLogger(), config: { options: { graph: { watch: false } } } });
    served = await serveHttp(host, { port: 0 });
    ingester = await openSession(served.url);
    reader = await openSession(served.url);
    const first = await ingester.call('ingest', { agent_id: 'ingester', path: '.' });
    assert.ok(first.nodes > 1500, JSON.stringify(first).slice(0, 300));
  });

  after(async () => {
    await reader?.close();
    await ingester?.close();
    await served?.close();
    await host?.close();
  });

  it('answers from the loaded graph, stamped stale, before the ingest ends; then from the new graph', async () => {
    fs.writeFileSync(path.join(ws, 'pkg0', 'fresh_module.py'), 'def brand_new_helper(x):\n    return x\n');
    let ingestDone = 0;
    const ingest = ingester.client.callTool({ name: 'ingest', arguments: { agent_id: 'ingester', path: '.' } }, undefined, { timeout: 240000 }).then((r) => {
      ingestDone = performance.now();
      return r;
    });
    // The ingest is under way (its first progress would tell; a short pause does here).
    await new Promise((r) => setTimeout(r, 300));
    const asked = performance.now();
    const seek = await reader.client.callTool({ name: 'seek', arguments: { agent_id: 'reader', query: 'worker step', top_k: 3 } }, undefined, { timeout: 240000 });
    const answered = performance.now();
    const during = text(seek);
    assert.equal(seek.isError, undefined, JSON.stringify(during));
    assert.equal(ingestDone, 0, `seek waited ${Math.round(answered - asked)} ms, until the other session's ingest ended`);
    assert.ok(during.results.length > 0, 'answered from the graph already loaded');
    assert.equal(during.stale, true, 'an answer given while the graph is rebuilt says it may be stale');
    const impact = await reader.call('impact', { agent_id: 'reader', node_id: 'function:pkg3/m3.py#f3', direction: 'reverse' });
    assert.equal(ingestDone, 0, 'a second graph verb does not wait either');
    assert.ok(impact.node, JSON.stringify(impact).slice(0, 300));
    const done = text(await ingest);
    assert.equal(done.files.parsed, 1501);
    const after = await reader.call('seek', { agent_id: 'reader', query: 'brand new helper', top_k: 1 });
    assert.equal(after.results[0]?.id, 'function:pkg0/fresh_module.py#brand_new_helper', JSON.stringify(after).slice(0, 300));
    assert.equal(after.stale, false);
  });

  it('answers the same way while an incremental ingest of many changed files reads and parses them, and sees them after', async () => {
    // A branch switch: most files changed at once, re-ingested by an explicit incremental ingest.
    for (let i = 0; i < 1500; i += 2) {
      const file = path.join(ws, `pkg${i % 20}`, `m${i}.py`);
      fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}\ndef switched_branch_${i}(x):\n    return x\n`);
    }
    let ingestDone = 0;
    const ingest = ingester.client.callTool({ name: 'ingest', arguments: { agent_id: 'ingester', path: '.', incremental: true } }, undefined, { timeout: 240000 }).then((r) => {
      ingestDone = performance.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    const asked = performance.now();
    const seek = await reader.client.callTool({ name: 'seek', arguments: { agent_id: 'reader', query: 'worker step', top_k: 3 } }, undefined, { timeout: 240000 });
    const during = text(seek);
    assert.equal(seek.isError, undefined, JSON.stringify(during));
    assert.equal(ingestDone, 0, `seek waited ${Math.round(performance.now() - asked)} ms, until the other session's incremental ingest ended`);
    assert.equal(during.stale, true);
    const done = text(await ingest);
    assert.equal(done.files.parsed, 750);
    const after = await reader.call('seek', { agent_id: 'reader', query: 'switched branch 998', top_k: 1 });
    assert.equal(after.results[0]?.id, 'function:pkg18/m998.py#switched_branch_998', JSON.stringify(after).slice(0, 300));
    assert.equal(after.stale, false);
  });
});
