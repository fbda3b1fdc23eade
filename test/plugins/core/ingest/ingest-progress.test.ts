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

describe('ingest waiting for the type-check pass', function () {
  this.timeout(300_000);

  it('passes on how far the checker is while it waits, programs then files, between the parse phases and done', async () => {
    const ws = tempDir();
    const fs = await import('node:fs');
    const path = await import('node:path');
    fs.mkdirSync(path.join(ws, 'src'));
    fs.writeFileSync(path.join(ws, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022' }, include: ['src'] }));
    // Enough files, each calling methods of the one before it, that the pass lasts several reports.
    const N = 700;
    for (let i = 0; i < N; i++) {
      const prev = i > 0 ? `import { Service${i - 1} } from './m${i - 1}.js';\n` : '';
      const body = i > 0 ? `    const s = new Service${i - 1}();\n    return s.run(n + 1) + s.helper(String(n)).length;` : '    return n;';
      fs.writeFileSync(path.join(ws, 'src', `m${i}.ts`), `${prev}export class Service${i} {\n  run(n: number): number {\n${body}\n  }\n  helper(x: string): string {\n    return x.trim();\n  }\n}\n`);
    }
    const h = await connect({ workspaceRoot: ws, env: { M1ND_CACHE_DIR: tempDir() } });
    try {
      const { seen, json } = await ingestWatching(h, {});
      assert.equal(json.type_checked.pending, 0);
      assert.ok(json.type_checked.precise >= N - 1, JSON.stringify(json.type_checked));
      const checking = seen.filter((p) => /^type-check (building programs \d+\/\d+|\d+\/\d+ files)$/.test(String(p.message)));
      assert.ok(checking.length >= 1, `no notification said how far the checker was: ${JSON.stringify(seen.slice(-6))}`);
      const built = seen.filter((p) => /^build /.test(String(p.message))).at(-1)!;
      assert.ok(checking.every((p) => p.progress > built.progress && p.progress < p.total!), `between the build and done: ${JSON.stringify(seen.slice(-8))}`);
      assertEndsAtTotal(seen, 'ingest with a type-check pass');
    } finally {
      await h.close();
    }
  });
});
