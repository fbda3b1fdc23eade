import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { extractorFor, extractorReady } from '../../../../plugins/graph/engine/parsers/index.ts';
import { DEFAULT_WORKER_NICE, sharedParsePool } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import { loadDefaultParser, type SourceParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { BACKGROUND_SLICE_MS } from '../../../../plugins/graph/engine/steps.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

const WORKERS = 2;

/** Five small modules and one over 64 KiB (a long data table). */
function files(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < 5; i++) out[`m${i}.py`] = `def f${i}(x):\n    return x + ${i}\n`;
  const rows = ['TABLE = ['];
  for (let i = 0; i < 3000; i++) rows.push(`    (${i}, 'name_${i}'),`);
  rows.push(']', '', 'def lookup(i):', '    return TABLE[i]', '');
  out['big.py'] = rows.join('\n');
  return out;
}

describe('where a small re-ingest parses', function () {
  this.timeout(120_000);
  let root: string;
  let engine: CodeGraphEngine;
  /** The default parsers, told whether the main thread holds the Python extractor. */
  let holds = false;
  let edits = 0;

  const pool = () => sharedParsePool(WORKERS, DEFAULT_WORKER_NICE);
  /** Rewrites `path` (a new function each time) and re-ingests it alone. */
  const reingest = async (path: string, background: boolean) => {
    const fn = `edit_${++edits}`;
    writeFileSync(join(root, path), `def ${fn}(x):\n    return x\n`);
    const summary = await engine.ingest({ paths: [path], ...(background ? { sliceMs: BACKGROUND_SLICE_MS } : {}) });
    assert.ok(engine.graph.get(`function:${path}#${fn}`), `${fn} is in the graph`);
    return summary.parseWorkers;
  };

  before(async () => {
    root = writeWorkspace(files(), 'm1nd-small-runs-');
    const base = await loadDefaultParser();
    const parser: SourceParser = { ...base, ready: (language) => (language === 'python' ? holds : base.ready!(language)) };
    engine = new CodeGraphEngine({ root, storeDir: join(root, '.store'), typeCheck: false, gitMaxCommits: 0, parseWorkers: WORKERS, parser });
    await engine.ingest();
  });
  beforeEach(async () => {
    await pool().stop();
  });
  after(async () => {
    await engine?.close();
    await pool().stop();
    removeWorkspace(root);
  });

  it('the default parsers say a language is ready only once its extractor was made in this thread', async () => {
    assert.equal(extractorReady('markdown'), true);
    await extractorFor('go');
    assert.equal(extractorReady('go'), true);
  });

  it("a background re-ingest of one file parses in the workers while the main thread holds no extractor for its language (making one holds the loop 50–120 ms)", async () => {
    holds = false;
    assert.equal(await reingest('m1.py', true), WORKERS);
  });

  it('a caller waiting on a small re-ingest with the workers stopped parses on the main thread (their start-up costs more than the compile)', async () => {
    holds = false;
    assert.equal(pool().started, false);
    assert.equal(await reingest('m2.py', false), 0);
  });

  it('with the workers running, the caller’s re-ingest parses there too', async () => {
    holds = false;
    pool().warm();
    assert.equal(await reingest('m3.py', false), WORKERS);
  });

  it('once the main thread holds the extractor, a small file parses there; a file over 64 KiB goes to the workers in the background', async () => {
    holds = true;
    assert.equal(await reingest('m4.py', true), 0);
    const rows = ['ROWS = ['];
    for (let i = 0; i < 4000; i++) rows.push(`    (${i}, 'row_${i}'),`);
    rows.push(']', '');
    writeFileSync(join(root, 'big.py'), rows.join('\n') + 'def edit_big(x):\n    return x\n');
    const summary = await engine.ingest({ paths: ['big.py'], sliceMs: BACKGROUND_SLICE_MS });
    assert.equal(summary.parseWorkers, WORKERS);
    assert.ok(engine.graph.get('function:big.py#edit_big'));
  });

  it("a caller's re-ingest of a file over 64 KiB goes to the workers even while they are stopped (here it would hold the loop ~0.5 ms per KiB)", async () => {
    holds = true;
    assert.equal(pool().started, false);
    const rows = ['ROWS = ['];
    for (let i = 0; i < 4000; i++) rows.push(`    (${i}, 'row_${i}'),`);
    rows.push(']', '');
    writeFileSync(join(root, 'big.py'), rows.join('\n') + 'def edit_caller(x):\n    return x\n');
    const summary = await engine.ingest({ paths: ['big.py'] });
    assert.equal(summary.parseWorkers, WORKERS);
    assert.ok(engine.graph.get('function:big.py#edit_caller'));
  });
});
