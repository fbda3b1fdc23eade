import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { DEFAULT_WORKER_NICE, sharedParsePool, sharedParsePoolStarted } from '../../../../plugins/graph/engine/parse-pool/pool.ts';
import { loadDefaultParser, type SourceParser } from '../../../../plugins/graph/engine/source-parser.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

const WORKERS = 2;

const SMALL = 'class Cart:\n    def total(self, items):\n        return sum(items)\n\n\ndef checkout(cart):\n    return cart.total([1, 2])\n';
/** Over 64 KiB: a data table, then the same definitions. */
const BIG = `TABLE = [\n${Array.from({ length: 3000 }, (_, i) => `    (${i}, 'name_${i}'),`).join('\n')}\n]\n\n${SMALL}`;

const symbolsOf = (e: { symbols: { kind: string; qualifiedName: string; startLine: number; endLine: number }[] } | null) =>
  (e?.symbols ?? []).map((s) => `${s.kind} ${s.qualifiedName} ${s.startLine}-${s.endLine}`);

describe('extracting a text that is not on disk (an edit preview)', function () {
  this.timeout(120_000);
  let root: string;
  let engine: CodeGraphEngine;
  let base: SourceParser;
  /** Whether the main thread is said to hold the Python extractor, and how often it was asked for one (whole or sliced). */
  let holds = false;
  let madeHere = 0;

  before(async () => {
    root = writeWorkspace({ 'shop.py': SMALL }, 'm1nd-extract-text-');
    base = await loadDefaultParser();
    const parser: SourceParser = {
      ...base,
      ready: (language) => (language === 'python' ? holds : base.ready!(language)),
      extractorFor: (language) => {
        madeHere++;
        return base.extractorFor(language);
      },
      extractorSliced: (language) => {
        madeHere++;
        return base.extractorSliced!(language);
      },
    };
    engine = new CodeGraphEngine({ root, storeDir: join(root, '.store'), typeCheck: false, gitMaxCommits: 0, parseWorkers: WORKERS, parser });
  });
  beforeEach(async () => {
    madeHere = 0;
    await sharedParsePool(WORKERS, DEFAULT_WORKER_NICE).stop();
  });
  after(async () => {
    await engine?.close();
    await sharedParsePool(WORKERS, DEFAULT_WORKER_NICE).stop();
    removeWorkspace(root);
  });

  it('parses in a worker while this thread holds no extractor for the language (its first one compiles the query in one long call), with the same symbols', async () => {
    holds = false;
    const here = symbolsOf((await base.extractorFor('python'))('shop.py', SMALL));
    assert.deepEqual(symbolsOf(await engine.extractText('shop.py', SMALL)), here);
    assert.equal(madeHere, 0, 'no extractor made on this thread');
    assert.ok(sharedParsePoolStarted(WORKERS, DEFAULT_WORKER_NICE), 'the workers parsed it');
  });

  it('parses here once the extractor is held and the text is small, and in a worker when the text is 64 KiB or more', async () => {
    holds = true;
    assert.deepEqual(symbolsOf(await engine.extractText('shop.py', SMALL)), ['class Cart 1-3', 'method Cart.total 2-3', 'function checkout 6-7']);
    assert.equal(madeHere, 1);
    assert.ok(!sharedParsePoolStarted(WORKERS, DEFAULT_WORKER_NICE), 'no worker started for a small text');

    madeHere = 0;
    const big = symbolsOf(await engine.extractText('shop.py', BIG));
    assert.equal(madeHere, 0, 'a big text is not parsed here');
    assert.ok(big.includes('function checkout 3009-3010'), big.join(', '));
  });

  it('answers null for a file of no known language', async () => {
    assert.equal(await engine.extractText('notes.bin', 'x'), null);
  });
});
