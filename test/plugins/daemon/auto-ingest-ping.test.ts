import { strict as assert } from 'node:assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const DOCS = 400;

describe('auto_ingest_tick: a large tick never blocks the server for long', function () {
  this.timeout(300_000);
  let h: Harness | undefined;
  after(async () => {
    await h?.close();
  });

  it('answers pings within a few ms while one tick ingests 400 Markdown documents and writes their manifest entries', async () => {
    const ws = tempDir('m1nd-auto-ingest-ping-');
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/cart.ts'), 'export function total(prices: number[]): number {\n  return prices.reduce((a, b) => a + b, 0);\n}\n');
    mkdirSync(join(ws, 'docs'));
    for (let i = 0; i < DOCS; i++) writeFileSync(join(ws, `docs/note${i}.md`), `# Note ${i}\n\nThe checkout calls \`total\` in src/cart.ts; word${i} marks this note.\n`);
    h = await connect({
      workspaceRoot: ws,
      env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: join(ws, '..', `${ws.split('/').pop()}-cache`) },
      config: { options: { graph: { watch: false, typeCheck: false }, structure: { backgroundFacts: false } } },
    });
    const call = async (verb: string, args: Record<string, unknown> = {}) => {
      const r = await h!.call(verb, { agent_id: 'a', ...args });
      assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
      return r.json as any;
    };
    await call('ingest', { path: '.' });
    await call('auto_ingest_start', { roots: ['docs'], debounce_ms: 600000 });
    const { result, held: withGc, gc } = await pingDuringGc(h, () => call('auto_ingest_tick', { max_documents: 1000 }));
    assert.equal(result.processed, DOCS);
    assert.equal((await call('auto_ingest_status', { top_k: 0 })).manifest.entries, DOCS);
    const held = ownHeld(withGc, gc);
    console.log(`      tick of ${DOCS}: ${describeHeld(held)}`);
    assert.ok(held.length >= 5, `only ${held.length} pings were answered during the tick`);
    const worst = Math.max(...held);
    assert.ok(worst < 40, `a ping waited on ${worst.toFixed(1)} ms of main-thread work (${describeHeld(held)})`);
  });

  it('answers pings within a few ms while the next tick prunes those 400 documents, deleted', async () => {
    const ws = h!.workspace;
    for (let i = 0; i < DOCS; i++) rmSync(join(ws, `docs/note${i}.md`));
    const { result, held: withGc, gc } = await pingDuringGc(h!, async () => {
      const r = await h!.call('auto_ingest_tick', { agent_id: 'a', max_documents: 1000 });
      assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
      return r.json as any;
    });
    assert.equal(result.pruned.length, 100, 'the answer lists 100 of them');
    assert.equal(result.processed, DOCS);
    const held = ownHeld(withGc, gc);
    console.log(`      prune of ${DOCS}: ${describeHeld(held)}`);
    const worst = Math.max(...held);
    assert.ok(worst < 40, `a ping waited on ${worst.toFixed(1)} ms of main-thread work (${describeHeld(held)})`);
  });
});
