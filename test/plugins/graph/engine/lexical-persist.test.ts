import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeGraphEngine } from '../../../../plugins/graph/engine/engine.ts';
import { queryTuning } from '../../../../plugins/graph/engine/lexical-query.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

/** Python, TypeScript and Go modules; every function's body says `value`, so that word's posting list is long. */
function generatedRepo(modules: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < modules; i++) {
    const pkg = `pkg${Math.floor(i / 25)}`;
    if (i % 3 === 0) {
      files[`${pkg}/ledger_${i}.py`] = [
        `def reconcile_ledger_${i}(entries):`,
        `    """Reconciles the ledger entries of shard ${i}."""`,
        `    value = sum(e.value for e in entries)`,
        `    return value`,
        '',
        `def audit_value_${i}(value):`,
        `    return value * ${i}`,
        '',
      ].join('\n');
    } else if (i % 3 === 1) {
      files[`${pkg}/invoice${i}.ts`] = [
        `/** Renders invoice ${i} as HTML. */`,
        `export function renderInvoice${i}(value: number): string {`,
        `  return '<p>' + value + '</p>';`,
        `}`,
        `export class InvoiceStore${i} {`,
        `  save(value: number): number {`,
        `    return value + ${i};`,
        `  }`,
        `}`,
      ].join('\n');
    } else {
      files[`${pkg}/retry${i}.go`] = [
        `package ${pkg}`,
        '',
        `// BackoffDelay${i} computes the retry delay for attempt value.`,
        `func BackoffDelay${i}(value int) int {`,
        `\treturn value * ${i}`,
        `}`,
      ].join('\n');
    }
  }
  return files;
}

const QUERIES = ['reconcile ledger 30', 'render invoice value', 'value', 'backoff delay retry 41', 'audit value 99', 'save invoice store', 'where is the retry delay computed', 'html', 'ledger entries shard 120', 'InvoiceStore7'];

describe('the seek index file', function () {
  this.timeout(300_000);
  let root: string;
  const engines: CodeGraphEngine[] = [];
  const open = async (): Promise<CodeGraphEngine> => {
    const e = new CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, parseWorkers: 0 });
    engines.push(e);
    await e.open();
    return e;
  };
  const answers = (e: CodeGraphEngine, topK = 20): string => JSON.stringify(QUERIES.map((q) => e.seek(q, { topK, minScore: 0 }).results));
  const file = (): string => join(root, '.m1nd', 'seek-index.bin');
  const stats = (e: CodeGraphEngine) => e.status().lexical;

  before(async () => {
    root = writeWorkspace(generatedRepo(900), 'm1nd-seek-file-');
    const e = new CodeGraphEngine({ root, gitMaxCommits: 0, typeCheck: false, parseWorkers: 0 });
    engines.push(e);
    await e.ingest();
    await e.close();
  });
  const written = (e: CodeGraphEngine): Promise<void> | null => (e as unknown as { loaded: { lexical: { fileWrite: Promise<void> | null } } }).loaded.lexical.fileWrite;
  afterEach(async () => {
    queryTuning.longSource = 4096;
    for (const e of engines.splice(0)) {
      await written(e);
      await e.close();
    }
  });
  after(() => removeWorkspace(root));

  it('is written after the first full build, and a new engine reads it instead of building, answering every query exactly as a fresh build', async () => {
    rmSync(file(), { force: true });
    const a = await open();
    await a.prepareSeek();
    assert.equal(stats(a).builds, 1);
    await written(a);
    assert.ok(existsSync(file()), 'the build wrote the index file');
    const built = answers(a);
    const b = await open();
    await b.prepareSeek();
    assert.deepEqual({ builds: stats(b).builds, fileLoads: stats(b).fileLoads }, { builds: 0, fileLoads: 1 });
    const loaded = answers(b);
    assert.equal(loaded, built);
    assert.ok(JSON.parse(loaded)[0][0].id.endsWith('#reconcile_ledger_30'), loaded.slice(0, 200));
    // A rebuild in the same process (never from the file) gives the same answers and index size.
    const before = stats(b);
    (b as unknown as { loaded: { lexical: { rebuild(g: unknown): void } } }).loaded.lexical.rebuild(b.graph);
    assert.equal(answers(b), loaded);
    assert.deepEqual([stats(b).tokens, stats(b).postings, stats(b).documents], [before.tokens, before.postings, before.documents]);
  });

  it('is not used when it is corrupt, truncated, or from before an ingest that changed the graph', async () => {
    const a = await open();
    await a.prepareSeek();
    await written(a);
    const good = readFileSync(file());
    const expected = answers(a);
    const bad = Buffer.from(good);
    // A posting's node index out of range (in the middle of the file's arrays).
    bad.writeInt32LE(0x7fffffff, Math.floor(bad.length / 2) & ~3);
    for (const broken of [bad, good.subarray(0, good.length - 7)]) {
      writeFileSync(file(), broken);
      const e = await open();
      await e.prepareSeek();
      assert.deepEqual({ builds: stats(e).builds, fileLoads: stats(e).fileLoads }, { builds: 1, fileLoads: 0 });
      assert.equal(answers(e), expected);
      await written(e);
    }
    writeFileSync(file(), good);
    // An ingest moves the store to a new generation: the file no longer holds, and the next full build replaces it.
    writeFileSync(join(root, 'pkg0/ledger_0.py'), 'def reconcile_ledger_0(entries):\n    return 0\n\ndef brand_new_helper():\n    return 1\n');
    const generation = a.generation;
    const ingested = await a.ingest();
    assert.ok(a.generation > generation, JSON.stringify(ingested).slice(0, 300));
    const fresh = await open();
    assert.equal(fresh.generation, a.generation);
    await fresh.prepareSeek();
    assert.deepEqual({ builds: stats(fresh).builds, fileLoads: stats(fresh).fileLoads }, { builds: 1, fileLoads: 0 });
    assert.equal(fresh.seek('brand new helper', { topK: 1 }).results[0]?.label, 'brand_new_helper');
  });

  it('gives the same hits when long posting lists are looked up per candidate as when every list is scanned', async () => {
    const e = await open();
    await e.prepareSeek();
    for (const topK of [1, 5, 20]) {
      const pruned = answers(e, topK);
      queryTuning.longSource = Infinity;
      const full = answers(e, topK);
      queryTuning.longSource = 4096;
      assert.equal(pruned, full, `topK ${topK}`);
    }
    // With a low threshold every common word is "long": the rare words' candidates still give the full pass's hits.
    queryTuning.longSource = 8;
    const low = answers(e);
    queryTuning.longSource = Infinity;
    assert.equal(low, answers(e));
    const kinds = ['function'] as const;
    queryTuning.longSource = 8;
    const filtered = JSON.stringify(QUERIES.map((q) => e.seek(q, { topK: 3, kinds: [...kinds] }).results));
    queryTuning.longSource = Infinity;
    assert.equal(filtered, JSON.stringify(QUERIES.map((q) => e.seek(q, { topK: 3, kinds: [...kinds] }).results)));
  });
});
