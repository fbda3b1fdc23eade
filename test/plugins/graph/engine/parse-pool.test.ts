import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import type { IngestSummary } from '../../../../plugins/graph/engine/ingest.ts';
import { ParsePool } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import { loadDefaultParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { lightExtraction } from '../../../../plugins/graph/engine/store-files.ts';
import { FIXTURE_FILES } from './fixture-repo.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';


/** 60 Python modules calling into each other, the multi-language fixture, and one big data module. */
function files(): Record<string, string> {
  const out: Record<string, string> = { ...FIXTURE_FILES };
  for (let i = 0; i < 60; i++) {
    const prev = i === 0 ? '' : `from pkg.mod_${i - 1} import helper_${i - 1}, Thing${i - 1}\n`;
    out[`pkg/mod_${i}.py`] = [
      prev,
      `class Thing${i}${i === 0 ? '' : `(Thing${i - 1})`}:`,
      `    def run(self, x):`,
      `        return helper_${i}(x)${i === 0 ? '' : ` + helper_${i - 1}(x)`}`,
      '',
      `def helper_${i}(x):`,
      `    return Thing${i}().run(x) if x else ${i}`,
      '',
    ].join('\n');
  }
  // Parsing this one file takes far longer than the bound on one thread (~1.7 MB of tuples).
  const rows = ['TABLE = ['];
  for (let i = 0; i < 40_000; i++) rows.push(`    (${i}, 'name_${i}', ${i * 3}.5, None),`);
  rows.push(']', '');
  out['pkg/table.py'] = rows.join('\n');
  return out;
}

interface Run {
  summary: IngestSummary;
  nodes: string[];
  edges: string[];
  loopMaxMs: number;
}

async function ingestWith(root: string, storeDir: string, workers: number): Promise<Run> {
  const engine = new CodeGraphEngine({ root, storeDir, typeCheck: false, maxFileBytes: 4 * 1024 * 1024, parseWorkers: workers });
  await engine.open();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const summary = await engine.ingest();
  // The histogram records a block when its timer next runs: let it run once after the ingest's last step.
  await new Promise((r) => setTimeout(r, 30));
  delay.disable();
  const g = engine.graph;
  const nodes = [...g.nodes()].map(([, n]) => `${n.id} ${n.kind} ${n.startLine}-${n.endLine}`).sort();
  const edges: string[] = [];
  for (let e = 0; e < g.edgeCapacity; e++) {
    const ed = g.edge(e);
    if (ed) edges.push(`${ed.source} -${ed.relation}-> ${ed.target}`);
  }
  await engine.close();
  return { summary, nodes, edges: edges.sort(), loopMaxMs: delay.max / 1e6 };
}

describe('ingest through parse workers', function () {
  this.timeout(120_000);
  let root: string;
  let pooled: Run;
  let inProcess: Run;

  before(async () => {
    root = writeWorkspace(files(), 'm1nd-parse-pool-');
    // Loading the parser modules once per process is start-up, not ingest: done before measuring.
    await loadDefaultParser();
    inProcess = await ingestWith(root, `${root}/.store-main`, 0);
    pooled = await ingestWith(root, `${root}/.store-pooled`, 2);
  });
  after(() => removeWorkspace(root));

  it('parses in the workers, and the main thread only when asked', () => {
    assert.equal(pooled.summary.parseWorkers, 2);
    assert.equal(inProcess.summary.parseWorkers, 0);
    assert.equal(pooled.summary.files.parsed, inProcess.summary.files.parsed);
    assert.ok(pooled.summary.files.parsed >= 60 + 1, `parsed ${pooled.summary.files.parsed}`);
  });

  it('builds the same graph as a single-threaded ingest', () => {
    assert.ok(pooled.edges.some((e) => /mod_5\.py.*-calls->.*mod_4\.py#helper_4$/.test(e)), 'a cross-module call is linked');
    assert.deepEqual(pooled.nodes, inProcess.nodes);
    assert.deepEqual(pooled.edges, inProcess.edges);
    assert.deepEqual(pooled.summary.skippedByReason, inProcess.summary.skippedByReason);
    assert.deepEqual(pooled.summary.parseErrors, inProcess.summary.parseErrors);
  });

  it('does not hold the event loop while the workers parse', async () => {
    assert.ok(inProcess.nodes.some((n) => n.startsWith('file:pkg/table.py ')), 'the big module is in the graph');
    // The fixture is heavy enough to tell: on this thread, parsing the big module alone takes longer than the bound.
    const extract = await (await loadDefaultParser()).extractorFor('python');
    const text = readFileSync(join(root, 'pkg/table.py'), 'utf8');
    const t = performance.now();
    extract('pkg/table.py', text);
    const onThread = performance.now() - t;
    // Relative to this machine's speed right now: a parse of that one module on the main thread would
    // hold the loop for onThread ms; the pooled ingest (which parses it too) must hold it for under half.
    assert.ok(pooled.loopMaxMs < onThread / 2, `pooled ingest held the loop ${pooled.loopMaxMs.toFixed(0)} ms; parsing the big module here takes ${onThread.toFixed(0)} ms`);
  });

  it('answers two parses sharing one pool, each in its own order', async () => {
    const pool = new ParsePool(1);
    const version = (await loadDefaultParser()).version;
    const task = (path: string) => ({ path, language: 'python' as const, size: 200, mtimeMs: 0, sameKey: null });
    try {
      // 60 files make three batches, enough to fill the worker's in-flight slots before the second parse asks.
      const many = pool.parse(root, version, Array.from({ length: 60 }, (_, i) => task(`pkg/mod_${i}.py`)));
      const few = pool.parse(root, version, [task('pkg/mod_7.py'), task('pkg/missing.py')]);
      const [a, b] = await Promise.all([many, few]);
      assert.equal(a.outcomes.length, 60);
      assert.deepEqual(a.outcomes.map((o) => (o.kind === 'parsed' ? o.row.path : o.kind)), Array.from({ length: 60 }, (_, i) => `pkg/mod_${i}.py`));
      assert.deepEqual(b.outcomes.map((o) => (o.kind === 'parsed' ? o.extraction.symbols.map((x) => x.qualifiedName).join(',') : o.kind === 'skip' ? o.reason : o.kind)), ['Thing7,Thing7.run,helper_7', 'unreadable']);
    } finally {
      await pool.stop();
    }
  });

  it('hands a streamed run light copies, parsing the whole extraction only when it is read', async () => {
    const pool = new ParsePool(1);
    const version = (await loadDefaultParser()).version;
    const tasks = Array.from({ length: 30 }, (_, i) => ({ path: `pkg/mod_${i}.py`, language: 'python' as const, size: 200, mtimeMs: 0, sameKey: null }));
    try {
      const light = await pool.parse(root, version, tasks, { light: true });
      const whole = await pool.parse(root, version, tasks);
      assert.equal(light.outcomes.length, 30);
      for (let i = 0; i < 30; i++) {
        const l = light.outcomes[i];
        const w = whole.outcomes[i];
        assert.ok(l.kind === 'parsed' && w.kind === 'parsed');
        assert.equal(w.light, undefined, 'no light copy unless asked');
        assert.ok(l.light, 'a light copy when asked');
        // Lazy: the whole extraction is a getter over the JSON the store writes as is.
        assert.equal(typeof Object.getOwnPropertyDescriptor(l, 'extraction')?.get, 'function');
        assert.deepEqual(l.light, JSON.parse(JSON.stringify(lightExtraction(w.extraction))));
        assert.deepEqual(l.extraction, w.extraction);
        assert.equal(l.json, w.json);
        if (i > 0) assert.ok(w.extraction.calls.length > 0 && l.light.calls.length === 0, 'the light copy leaves calls out');
      }
    } finally {
      await pool.stop();
    }
  });

  it('stops a pooled parse when the ingest is aborted, committing nothing', async () => {
    const engine = new CodeGraphEngine({ root, storeDir: `${root}/.store-aborted`, typeCheck: false, maxFileBytes: 4 * 1024 * 1024, parseWorkers: 2 });
    await engine.open();
    const controller = new AbortController();
    let parsedAtAbort = -1;
    let parsedAfter = 0;
    const ingest = engine.ingest({
      signal: controller.signal,
      onProgress: (done, total, phase) => {
        if (phase !== 'parse') return;
        if (parsedAtAbort < 0 && done > 0 && done < total) {
          parsedAtAbort = done;
          controller.abort();
        } else if (parsedAtAbort >= 0) parsedAfter = done;
      },
    });
    try {
      await assert.rejects(ingest, (e: Error & { code?: string }) => e.code === 'M1ND_ERR_ENGINE_INGEST_ABORTED');
      assert.ok(parsedAtAbort > 0, 'the abort came mid-parse');
      assert.equal(parsedAfter, 0, 'no batch was reported after the abort');
      assert.equal(engine.status().generation, 0, 'nothing was committed');
    } finally {
      await engine.close();
    }
    // No connection of the process is left on the store once close() resolved (the commit
    // worker's, opened for the dropped run's clean-up, included): SQLite removes the WAL and
    // shared-memory files when the last connection closes, and nothing reopens them later.
    const leftovers = (): string[] => readdirSync(`${root}/.store-aborted`).filter((f) => f.endsWith('-wal') || f.endsWith('-shm'));
    assert.deepEqual(leftovers(), []);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(leftovers(), [], 'no connection was opened after close');
  });
});
