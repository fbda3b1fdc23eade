import assert from 'node:assert/strict';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

type Seen = { progress: number; total?: number; message?: string };

async function ingestWatching(h: Harness, args: Record<string, unknown>): Promise<{ seen: Seen[]; json: any }> {
  const seen: Seen[] = [];
  const r = await h.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: '.', ...args } }, undefined, { onprogress: (p) => void seen.push(p) });
  const json = JSON.parse((r.content as { text: string }[])[0].text);
  assert.equal(r.isError, undefined, JSON.stringify(json));
  return { seen, json };
}

function assertEndsAtTotal(seen: Seen[], label: string): void {
  const values = seen.map((p) => p.progress);
  assert.ok(values.every((v, i) => i === 0 || v > values[i - 1]), `${label}: not increasing: ${values.join(', ')}`);
  const last = seen.at(-1)!;
  assert.equal(last.progress, last.total, `${label}: the last notification (${JSON.stringify(last)}) does not reach its total, a client's bar stays short of done`);
}

describe('ingest progress', function () {
  this.timeout(120000);

  it('ends at its total when there is no type-check pass to wait for (no TS/JS, or wait_precise false)', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      const quick = await ingestWatching(h, { wait_precise: false });
      assertEndsAtTotal(quick.seen, 'wait_precise false');
      const again = await ingestWatching(h, { incremental: true });
      assert.equal(again.json.files.parsed, 0, 'nothing changed');
      assertEndsAtTotal(again.seen, 'incremental, nothing to do');
    } finally {
      await h.close();
    }
  });
});

describe('an ingest queued behind another', function () {
  this.timeout(120000);

  it('says at once that it waits for the one running, then counts its own phases to the end', async () => {
    const ws = writeFixtureRepo(tempDir());
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      let firstDone = false;
      const first = h.client.callTool({ name: 'ingest', arguments: { agent_id: 'a', path: '.' } }).then(() => (firstDone = true));
      const seen: (Seen & { firstDone: boolean })[] = [];
      const second = h.client.callTool({ name: 'ingest', arguments: { agent_id: 'b', path: '.' } }, undefined, { onprogress: (p) => void seen.push({ ...p, firstDone }) });
      await Promise.all([first, second]);
      assert.ok(seen.length > 2, JSON.stringify(seen));
      const waiting = seen.find((p) => /waiting for the ingest already running/.test(String(p.message)));
      assert.ok(waiting, `no notification says why nothing moves: ${JSON.stringify(seen.slice(0, 3))}`);
      assert.equal(waiting.firstDone, false, 'it came before the running ingest ended');
      assertEndsAtTotal(seen, 'queued ingest');
    } finally {
      await h.close();
    }
  });
});
