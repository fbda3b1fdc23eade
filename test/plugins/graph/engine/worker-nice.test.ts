import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { ParsePool } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import type { ParseTask } from '../../../../plugins/graph/engine/parse-pool/parse-file.ts';
import { loadDefaultParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { connect, type Harness } from '../../../helpers/mcp.ts';
import { FIXTURE_FILES } from './fixture-repo.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

/** 60 Python modules calling each other plus the multi-language fixture: a full ingest parses in the pool (≥ 48 files). */
function files(): Record<string, string> {
  const out: Record<string, string> = { ...FIXTURE_FILES };
  for (let i = 0; i < 60; i++) {
    out[`pkg/mod_${i}.py`] = [`${i === 0 ? '' : `from pkg.mod_${i - 1} import helper_${i - 1}`}`, `def helper_${i}(x):`, `    return ${i === 0 ? 'x' : `helper_${i - 1}(x)`}`, ''].join('\n');
  }
  return out;
}

/** A thread's nice value (field 19 of /proc/self/task/<tid>/stat). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('parse workers at a lower priority (graph option workerNice)', function () {
  this.timeout(120_000);
  let root: string;
  let h: Harness | undefined;
  before(function () {
    if (process.platform !== 'linux' || !existsSync('/proc/thread-self')) this.skip();
    root = writeWorkspace(files(), 'm1nd-worker-nice-');
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  after(() => {
    if (root) removeWorkspace(root);
  });

  it('starts a pool\'s workers at the nice it was given, and reports their thread ids', async () => {
    const parser = await loadDefaultParser();
    const tasks: ParseTask[] = Object.keys(files())
      .filter((p) => p.startsWith('pkg/'))
      .sort()
      .map((path) => ({ path, language: 'python', size: 100, mtimeMs: 0, sameKey: null }));
    const main = niceOf(process.pid);
    for (const nice of [5, 0]) {
      const pool = new ParsePool(2, nice);
      try {
        await pool.parse(root, parser.version, tasks);
        const tids = pool.workerThreads();
        assert.equal(tids.length, 2);
        assert.ok(!tids.includes(process.pid));
        assert.deepEqual(tids.map(niceOf), [Math.min(19, main + nice), Math.min(19, main + nice)], `nice ${nice}`);
      } finally {
        await pool.stop();
      }
    }
  });

  /**
   * Ingests through the MCP client with `workerNice` (omitted: the default) and returns the nice
   * values of the threads started since (the parse workers, idle after the run, and what they
   * started: from sources each runs tsx's loader thread) that run at another priority than the main
   * thread, and the main thread's.
   */
  async function ingestWith(workerNice: number | undefined): Promise<{ others: number[]; main: number }> {
    const before = new Set(readdirSync('/proc/self/task'));
    h = await connect({ workspaceRoot: root, config: { options: { graph: { watch: false, typeCheck: false, gitMaxCommits: 0, parseWorkers: 2, ...(workerNice === undefined ? {} : { workerNice }) } } } });
    const res = await h.client.callTool({ name: 'ingest', arguments: { agent_id: 'nice', path: root, wait_precise: false } });
    const summary = JSON.parse((res.content as { type: string; text: string }[])[0].text);
    assert.equal(summary.parseWorkers, 2, JSON.stringify(summary).slice(0, 300));
    const main = niceOf(process.pid);
    const others = readdirSync('/proc/self/task')
      .filter((tid) => !before.has(tid))
      .map((tid) => niceOf(Number(tid)))
      .filter((n) => n !== main);
    return { others, main };
  }

  it('runs the workers the configured amount below the main thread', async () => {
    const { others, main } = await ingestWith(7);
    assert.ok(others.length >= 2, `${others.length} threads at another priority`);
    assert.deepEqual(new Set(others), new Set([Math.min(19, main + 7)]));
  });

  it('runs them 10 below by default', async () => {
    const { others, main } = await ingestWith(undefined);
    assert.ok(others.length >= 2, `${others.length} threads at another priority`);
    assert.deepEqual(new Set(others), new Set([Math.min(19, main + 10)]));
  });

  it('leaves them at the main thread\'s priority with workerNice 0', async () => {
    const { others } = await ingestWith(0);
    assert.deepEqual(others, []);
  });
});
