import { strict as assert } from 'node:assert';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { ParsePool, WORKER_YOUNG_MB, YOUNG_CAP_MIN_BYTES, youngGenerationFor } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import type { ParseOutcome, ParseTask } from '../../../../plugins/graph/engine/parse-pool/parse-file.ts';
import { loadDefaultParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { FIXTURE_FILES } from './fixture-repo.ts';
import { graphLines, removeWorkspace, writeWorkspace } from './helpers.ts';

/** 70 Python modules importing and calling each other, plus the multi-language fixture (a pooled run: ≥ 48 files). */
function files(): Record<string, string> {
  const out: Record<string, string> = { ...FIXTURE_FILES };
  for (let i = 0; i < 70; i++) {
    out[`pkg/mod_${i}.py`] = [
      i === 0 ? '' : `from pkg.mod_${i - 1} import helper_${i - 1}, Thing${i - 1}`,
      `class Thing${i}${i === 0 ? '' : `(Thing${i - 1})`}:`,
      `    def run(self, x):`,
      `        return helper_${i}(x)  # marker_${i}`,
      '',
      `def helper_${i}(x):`,
      `    return Thing${i}().run(x) if x else ${i}`,
      '',
    ].join('\n');
  }
  return out;
}

describe('parse pool memory', () => {
  let root: string;
  const dirs: string[] = [];
  before(() => {
    root = writeWorkspace(files(), 'm1nd-pool-mem-');
  });
  after(() => {
    removeWorkspace(root);
    for (const d of dirs) removeWorkspace(d);
  });

  it('starts its workers with an 8 MB young generation for a big parse only (by declared bytes), restarting them between the two kinds, and reports their memory after each batch', async () => {
    const parser = await loadDefaultParser();
    const pool = new ParsePool(2);
    try {
      const tasks = (size: number): ParseTask[] =>
        Object.keys(files())
          .filter((p) => p.endsWith('.py'))
          .sort()
          .map((path) => ({ path, language: 'python', size, mtimeMs: 0, sameKey: null }));
      const small = tasks(200);
      const big = tasks(Math.ceil(YOUNG_CAP_MIN_BYTES / small.length));
      assert.equal(youngGenerationFor(small), undefined);
      assert.equal(youngGenerationFor(big), WORKER_YOUNG_MB);
      assert.equal(youngGenerationFor(big.slice(1)), undefined, 'just under the threshold');
      const young = () => pool.workerLimits().map((l) => l.maxYoungGenerationSizeMb);
      const first = await pool.parse(root, parser.version, small);
      const defaults = young();
      assert.equal(defaults.length, 2);
      assert.ok(defaults.every((mb) => mb !== WORKER_YOUNG_MB), `a small parse keeps V8's default (${defaults})`);
      const run = await pool.parse(root, parser.version, big);
      assert.deepEqual(young(), [WORKER_YOUNG_MB, WORKER_YOUNG_MB]);
      assert.deepEqual(
        run.outcomes.map((o) => o.kind),
        first.outcomes.map((o) => o.kind),
      );
      assert.ok(run.workerHeap > 1 << 20 && run.workerHeap < 256 << 20, `worker heap ${run.workerHeap}`);
      // tree-sitter's runtime starts with 32 MB of linear memory; small files never grow it.
      assert.equal(run.workerWasm, 32 << 20);
      await pool.parse(root, parser.version, small);
      assert.deepEqual(young(), defaults, 'a small parse after a big one runs uncapped again');
    } finally {
      await pool.stop();
    }
  });

  it('sends no text when asked, with the same rows and extractions', async () => {
    const parser = await loadDefaultParser();
    const pool = new ParsePool(2);
    try {
      const tasks: ParseTask[] = Object.keys(files())
        .sort()
        .map((path) => ({ path, language: parser.detectLanguage(path) ?? 'python', size: 200, mtimeMs: 0, sameKey: null }))
        .filter((t) => parser.detectLanguage(t.path) !== null);
      const parsed = (outcomes: ParseOutcome[]) => outcomes.filter((o): o is Extract<ParseOutcome, { kind: 'parsed' }> => o.kind === 'parsed');
      const withText = parsed((await pool.parse(root, parser.version, tasks, { light: true })).outcomes);
      const without = parsed((await pool.parse(root, parser.version, tasks, { light: true, text: false })).outcomes);
      assert.ok(withText.length >= 70);
      assert.equal(without.length, withText.length);
      const all = files();
      assert.ok(withText.every((o) => o.text === all[o.row.path]), 'each text as written');
      assert.ok(without.every((o) => o.text === ''));
      assert.deepEqual(
        without.map((o) => [o.row, o.json, o.light]),
        withText.map((o) => [o.row, o.json, o.light]),
      );
    } finally {
      await pool.stop();
    }
  });

  it('keeps no text from a full ingest whose files exceed the search cache, with the same graph, and search still reads the files', async () => {
    const ingest = async (searchCacheChars: number) => {
      const storeDir = writeWorkspace({}, 'm1nd-pool-mem-store-');
      dirs.push(storeDir);
      const engine = new CodeGraphEngine({ root, storeDir, typeCheck: false, gitMaxCommits: 0, parseWorkers: 2, searchCacheChars });
      await engine.open();
      const summary = await engine.ingest();
      return { engine, summary };
    };
    const roomy = await ingest(64 << 20);
    const tight = await ingest(4_000);
    try {
      assert.equal(roomy.summary.parseWorkers, 2);
      assert.equal(tight.summary.parseWorkers, 2);
      assert.ok(roomy.engine.status().searchCacheChars > 10_000, 'a run that fits keeps its texts');
      assert.equal(tight.engine.status().searchCacheChars, 0, 'a run that does not fit keeps none');
      assert.deepEqual(graphLines(tight.engine.graph), graphLines(roomy.engine.graph));
      const hit = tight.engine.search('marker_42');
      assert.deepEqual(
        hit.matches.map((m) => m.path),
        ['pkg/mod_42.py'],
      );
    } finally {
      await roomy.engine.close();
      await tight.engine.close();
    }
  });
});
