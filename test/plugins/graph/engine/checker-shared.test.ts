/**
 * One checker worker serves every engine of a process: a second engine finds the compiler loaded
 * and the lib files parsed, each engine keeps programs of its own (its files, its edges), and an
 * engine that stops drops its programs without disturbing the others. Through the client on small
 * repositories, and through two servers in one process.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CheckerClient, type CheckResult } from '../../../../plugins/graph/engine/ts-program/checker-client.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';
import { connect, tempDir } from '../../../helpers/mcp.ts';

const FILES: Record<string, string> = {
  'src/shapes.ts': `export class Square {
  area(s: number): number {
    return s * s;
  }
}

export class Circle {
  area(r: number): number {
    return 3 * r * r;
  }
}
`,
  'src/use.ts': `import { Circle, Square } from './shapes.ts';

export function total(sq: Square, c: Circle): number {
  return sq.area(1) + c.area(2);
}
`,
};
const CHECKED = ['src/shapes.ts', 'src/use.ts'];

const inputs = (root: string) => CHECKED.map((p) => ({ path: p, hash: createHash('sha1').update(fs.readFileSync(path.join(root, p))).digest('hex') }));
const edgesOfUse = (r: CheckResult): string[] => (r.files.find((f) => f.path === 'src/use.ts')?.edges ?? []).map((e) => `${e.line} -> ${e.toPath}:${e.toLine} ${e.toName}`).sort();

describe('the checker worker shared by the engines of a process', function () {
  this.timeout(120000);
  // A cache folder of this suite's own: its clients get a worker no other test has started.
  let cache: string;
  before(() => {
    cache = path.join(tempDir('m1nd-shared-cache-'), 'm1nd');
  });

  it('gives a second engine the running worker and the parsed lib files: no start-up, no lib file parsed again, the same edges', async () => {
    const a = writeFixtureRepo(tempDir(), FILES);
    const b = writeFixtureRepo(tempDir(), FILES);
    const first = new CheckerClient(cache);
    const second = new CheckerClient(cache);
    try {
      await first.warm(a);
      const ra = await first.run(a, inputs(a), CHECKED);
      await second.warm(b);
      const rb = await second.run(b, inputs(b), CHECKED);
      assert.deepEqual(edgesOfUse(ra), ['4 -> src/shapes.ts:2 area', '4 -> src/shapes.ts:8 area']);
      assert.deepEqual(edgesOfUse(rb), edgesOfUse(ra));
      assert.ok(ra.stats.startupMs > 0, 'the first engine started the worker');
      assert.equal(rb.stats.startupMs, 0, 'the second found it running');
      // The first warm-up parses lib.dom.d.ts and the ES libs; the second reuses them (its warm-up CPU
      // is a fraction of the first's: ~0.3 against ~0.9 s on the 2-core machine).
      assert.ok(ra.stats.libsParsed >= 5, `the first engine parsed the lib files (${ra.stats.libsParsed})`);
      assert.equal(rb.stats.libsParsed, 0, 'the second parsed none');
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  it('keeps each engine on its own files: the same paths with other code give other edges, and a stopped engine leaves the others working', async () => {
    const a = writeFixtureRepo(tempDir(), FILES);
    const b = writeFixtureRepo(tempDir(), { ...FILES, 'src/use.ts': FILES['src/use.ts'].replace('sq.area(1) + c.area(2)', 'c.area(2)') });
    const first = new CheckerClient(cache);
    const second = new CheckerClient(cache);
    try {
      const [ra, rb] = await Promise.all([first.run(a, inputs(a), CHECKED), second.run(b, inputs(b), CHECKED)]);
      assert.deepEqual(edgesOfUse(ra), ['4 -> src/shapes.ts:2 area', '4 -> src/shapes.ts:8 area']);
      assert.deepEqual(edgesOfUse(rb), ['4 -> src/shapes.ts:8 area']);
      await first.stop();
      fs.writeFileSync(path.join(b, 'src/use.ts'), FILES['src/use.ts'].replace('sq.area(1) + c.area(2)', 'sq.area(2)'));
      const again = await second.run(b, inputs(b), CHECKED);
      assert.deepEqual(edgesOfUse(again), ['4 -> src/shapes.ts:2 area']);
      // A stopped engine's pass in flight rejects instead of hanging its caller.
      const pending = assert.rejects(first.run(a, inputs(a), CHECKED), /stopped/);
      await first.stop();
      await pending;
    } finally {
      await second.stop();
    }
  });

  it('stops the worker when the one engine it works for stops in the middle of a pass (nobody would read the result)', async () => {
    const own = path.join(tempDir('m1nd-lone-cache-'), 'm1nd');
    const a = writeFixtureRepo(tempDir(), FILES);
    const lone = new CheckerClient(own);
    const pending = assert.rejects(lone.run(a, inputs(a), CHECKED), /stopped/);
    await lone.stop();
    await pending;
    const next = new CheckerClient(own);
    try {
      const r = await next.run(a, inputs(a), CHECKED);
      assert.ok(r.stats.startupMs > 0, 'a new worker started');
      assert.deepEqual(edgesOfUse(r), ['4 -> src/shapes.ts:2 area', '4 -> src/shapes.ts:8 area']);
    } finally {
      await next.stop();
    }
  });

  it('drops the programs of an engine collected without being stopped (an embedder that never closed its server)', async () => {
    const a = writeFixtureRepo(tempDir(), FILES);
    const b = writeFixtureRepo(tempDir(), FILES);
    const keeper = new CheckerClient(cache);
    try {
      const first = await keeper.run(a, inputs(a), CHECKED);
      await (async () => {
        const dropped = new CheckerClient(cache);
        assert.equal((await dropped.run(b, inputs(b), CHECKED)).stats.clients, first.stats.clients + 1);
      })();
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      let clients = first.stats.clients + 1;
      for (let i = 0; i < 50 && clients > first.stats.clients; i++) {
        gc();
        await new Promise((r) => setTimeout(r, 20));
        clients = (await keeper.run(a, inputs(a), CHECKED)).stats.clients;
      }
      assert.equal(clients, first.stats.clients, 'the collected engine\'s programs were released');
    } finally {
      await keeper.stop();
    }
  });

  it('serves two servers of one process: the second server checks its workspace at once, and closing the first leaves it precise', async () => {
    const h1 = await connect({ workspaceRoot: writeFixtureRepo(tempDir(), FILES) });
    const h2 = await connect({ workspaceRoot: writeFixtureRepo(tempDir(), FILES) });
    try {
      const one = (await h1.call('ingest', { agent_id: 'a', path: h1.workspace })).json;
      const two = (await h2.call('ingest', { agent_id: 'a', path: h2.workspace })).json;
      assert.equal(one.type_checked.precise, 2);
      assert.equal(two.type_checked.precise, 2);
      await h1.close();
      fs.writeFileSync(path.join(h2.workspace, 'src/use.ts'), FILES['src/use.ts'].replace('sq.area(1) + c.area(2)', 'sq.area(1)'));
      const edited = (await h2.call('ingest', { agent_id: 'a', path: h2.workspace, incremental: true })).json;
      assert.equal(edited.type_checked.precise, 2);
      assert.equal(edited.type_checked.failed, 0);
      const callers = (await h2.call('impact', { agent_id: 'a', node_id: 'method:src/shapes.ts#Circle.area', direction: 'reverse', max_depth: 1 })).json;
      assert.ok(!JSON.stringify(callers).includes('src/use.ts#total'), 'total no longer calls Circle.area');
      const sq = (await h2.call('impact', { agent_id: 'a', node_id: 'method:src/shapes.ts#Square.area', direction: 'reverse', max_depth: 1 })).json;
      assert.ok(JSON.stringify(sq).includes('src/use.ts#total'), 'total still calls Square.area');
    } finally {
      await h1.close();
      await h2.close();
    }
  });
});
