import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { FACTS_DB } from '../../../plugins/structure/facts-store.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { describeHeld, ownHeld, pingDuringGc } from '../../helpers/ping.ts';

const MODULES = 150;

/** Python modules with a swallowed exception each, plus two large ones (parsed in a worker even alone). */
function repo(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < MODULES; i++) {
    const body: string[] = [`def load_${i}(path):`, '    try:', '        return open(path).read()', '    except OSError:', '        pass', ''];
    for (let f = 0; f < 12; f++) body.push(`def step_${i}_${f}(a, b):`, `    value = [x * ${f} for x in range(a) if x % 3]`, `    return sum(value) + b if a > ${f} else load_${i}(b)`, '');
    files[`pkg${Math.floor(i / 30)}/mod_${i}.py`] = body.join('\n');
  }
  for (const big of ['big_a', 'big_b']) {
    const lines: string[] = [];
    for (let f = 0; f < 900; f++) lines.push(`def ${big}_${f}(items, key):`, '    out = {}', '    for item in items:', `        out[item[key]] = item if item else ${f}`, '    return out', '');
    files[`${big}.py`] = lines.join('\n');
  }
  return files;
}

async function backgroundStatus(h: Harness): Promise<any> {
  return (await h.call('health', { agent_id: 'bg' })).json.structure.background_facts;
}

// The scans read the background job's facts here: the ingest's own findings (ingest-findings.test.ts) are off.
describe('the background facts job', function () {
  this.timeout(400_000);
  let ws: string;
  before(() => {
    ws = writeFixtureRepo(tempDir(), repo());
  });

  it('after an ingest computes every code file\'s facts without holding the event loop; the first scan_all then parses nothing', async () => {
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { ingestFindings: false }, graph: { watch: false, typeCheck: false } } } });
    try {
      await h.call('health', { agent_id: 'bg' });
      await h.call('ingest', { agent_id: 'bg', path: ws });
      let status = await backgroundStatus(h);
      const until = Date.now() + 300_000;
      const { held, gc } = await pingDuringGc(h, async () => {
        while (status.state !== 'done' && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 200));
          status = await backgroundStatus(h);
        }
      });
      assert.equal(status.state, 'done', JSON.stringify(status));
      assert.equal(status.files, MODULES + 2);
      assert.equal(status.parsed, MODULES + 2);
      assert.ok(held.length >= 20, `only ${held.length} pings answered`);
      // Garbage-collection pauses taken out: a whole-suite run's heap is this process's, not the job's.
      const own = ownHeld(held, gc);
      const worst = Math.max(...own);
      if (process.env.SHOW_HELD) console.log('HELD', [...held].sort((a, b) => b - a).slice(0, 6).map((x) => x.toFixed(1)).join(' '), 'OWN', [...own].sort((a, b) => b - a).slice(0, 6).map((x) => x.toFixed(1)).join(' '), held.length);
      assert.ok(worst < 100, `a ping waited on ${worst.toFixed(0)} ms of main-thread work while the job ran (${describeHeld(own)})`);

      const scan = (await h.call('scan_all', { agent_id: 'bg', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000 })).json;
      assert.equal(scan.files_parsed, 0);
      assert.equal(scan.files_from_cache, MODULES + 2);
      assert.equal(scan.counts.error_handling, MODULES);
    } finally {
      await h.close();
    }
  });

  it('a scan arriving while the job runs reuses its work: no file is parsed twice, and the job restarts after a re-ingest', async () => {
    const fresh = writeFixtureRepo(tempDir(), repo());
    const h = await connect({ workspaceRoot: fresh, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { ingestFindings: false }, graph: { watch: false, typeCheck: false } } } });
    try {
      await h.call('ingest', { agent_id: 'bg', path: fresh });
      // Let the job start, then scan mid-way.
      let status = await backgroundStatus(h);
      const until = Date.now() + 120_000;
      while (status.done === 0 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        status = await backgroundStatus(h);
      }
      const progress: string[] = [];
      const res = await h.client.callTool({ name: 'scan_all', arguments: { agent_id: 'bg', patterns: ['error_handling'], limit_per_pattern: 200, token_budget: 20000, time_budget_ms: 120000 } }, undefined, {
        timeout: 300_000,
        onprogress: (p) => progress.push(p.message ?? ''),
      });
      const scan = JSON.parse((res.content as { text: string }[])[0].text);
      assert.equal(scan.files_scanned, MODULES + 2);
      assert.equal(scan.counts.error_handling, MODULES);
      while (status.state !== 'done' && Date.now() < until + 180_000) {
        await new Promise((r) => setTimeout(r, 200));
        status = await backgroundStatus(h);
      }
      assert.equal(status.state, 'done');
      assert.ok(scan.files_from_cache > 0, 'the scan took what the job had made');
      assert.equal(status.parsed + scan.files_parsed, MODULES + 2, `job parsed ${status.parsed}, scan ${scan.files_parsed}: each file once`);
      if (scan.files_parsed > 0) assert.ok(progress.some((m) => /files parsed/.test(m)), JSON.stringify(progress));

      // A changed graph starts a new run, which parses only the changed file and drops the deleted one's row.
      const runs = status.runs;
      const { writeFileSync, rmSync } = await import('node:fs');
      writeFileSync(`${fresh}/pkg0/mod_0.py`, 'def only():\n    return 1\n');
      rmSync(`${fresh}/pkg0/mod_1.py`);
      await h.call('ingest', { agent_id: 'bg', path: fresh });
      status = await backgroundStatus(h);
      const again = Date.now() + 120_000;
      while ((status.runs === runs || status.state !== 'done') && Date.now() < again) {
        await new Promise((r) => setTimeout(r, 100));
        status = await backgroundStatus(h);
      }
      assert.equal(status.runs, runs + 1);
      assert.equal(status.parsed, 1);
      assert.equal(status.files, MODULES + 1);
      const db = new Database(`${fresh}/.m1nd/${FACTS_DB}`, { readonly: true });
      try {
        const paths = (db.prepare('SELECT path FROM facts').pluck().all() as string[]).sort();
        assert.equal(paths.length, MODULES + 1);
        assert.ok(!paths.includes('pkg0/mod_1.py'));
      } finally {
        db.close();
      }
    } finally {
      await h.close();
    }
  });
});
