import { strict as assert } from 'node:assert';
import { ContentCache, filterSearchPaths, searchContents, searchSteps } from '../../../../plugins/graph/engine/content-search.ts';
import { removeWorkspace, writeWorkspace } from './helpers.ts';

describe('searchContents', () => {
  let root: string;
  let cache: ContentCache;
  const paths = ['src/a.py', 'src/b.ts', 'docs/c.md'];
  before(() => {
    root = writeWorkspace({
      'src/a.py': 'import os\n\ndef Alpha():\n    return os.getcwd()\n\ndef beta():\n    pass\n',
      'src/b.ts': 'export function alpha() {\n  return 1;\n}\n// TODO: alpha beta\n',
      'docs/c.md': '# Alpha\nsome text\n',
    });
    cache = new ContentCache(root, 1 << 20);
  });
  after(() => removeWorkspace(root));

  it('runs as steps of one file each, with the same answer as searchContents', () => {
    const steps = searchSteps(paths, cache, 'alpha', { contextLines: 1 });
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    assert.equal(yields, paths.length - 1, 'a step between two files');
    const { elapsedMs: _a, ...got } = r.value;
    const { elapsedMs: _b, ...expected } = searchContents(paths, cache, 'alpha', { contextLines: 1 });
    assert.deepEqual(got, expected);
  });

  it('finds literal matches case-insensitively by default, with line, column and context', () => {
    const r = searchContents(paths, cache, 'alpha', { contextLines: 1 });
    assert.equal(r.totalMatches, 4);
    assert.equal(r.filesMatched, 3);
    assert.deepEqual(r.matches[0], { path: 'src/a.py', line: 3, column: 5, endLine: 3, text: 'def Alpha():', before: [''], after: ['    return os.getcwd()'] });
    assert.deepEqual(r.matches.map((m) => `${m.path}:${m.line}`), ['src/a.py:3', 'src/b.ts:1', 'src/b.ts:4', 'docs/c.md:1']);
  });

  it('honours case sensitivity', () => {
    assert.equal(searchContents(paths, cache, 'Alpha', { caseSensitive: true }).totalMatches, 2);
  });

  it('counts one match per line, like grep', () => {
    assert.equal(searchContents(paths, cache, 'a', { mode: 'literal', caseSensitive: true, countOnly: true }).counts!.find((c) => c.path === 'src/b.ts')!.count, 2);
  });

  it('runs regexes and reports invalid ones with a coded error', () => {
    const r = searchContents(paths, cache, '^def \\w+\\(', { mode: 'regex', caseSensitive: true, contextLines: 0 });
    assert.deepEqual(r.matches.map((m) => m.text), ['def Alpha():', 'def beta():']);
    assert.throws(() => searchContents(paths, cache, '(', { mode: 'regex' }), (e: Error & { code?: string }) => e.code === 'M1ND_ERR_ENGINE_SEARCH_PATTERN');
  });

  it('keeps non-multiline regex matches on one line, and lets multiline ones span lines', () => {
    const single = searchContents(['src/a.py'], cache, 'os\\s+def', { mode: 'regex' });
    assert.equal(single.totalMatches, 0);
    const multi = searchContents(['src/a.py'], cache, 'getcwd\\(\\)\\s+def', { mode: 'regex', multiline: true, contextLines: 0 });
    assert.equal(multi.totalMatches, 1);
    assert.deepEqual([multi.matches[0].line, multi.matches[0].endLine], [4, 6]);
  });

  it('inverts, counts only, and truncates while still counting everything', () => {
    const inv = searchContents(['docs/c.md'], cache, 'alpha', { invert: true, contextLines: 0 });
    assert.deepEqual(inv.matches.map((m) => m.text), ['some text']);
    const counts = searchContents(paths, cache, 'alpha', { countOnly: true });
    assert.deepEqual(counts.counts, [{ path: 'src/a.py', count: 1 }, { path: 'src/b.ts', count: 2 }, { path: 'docs/c.md', count: 1 }]);
    assert.equal(counts.matches.length, 0);
    const capped = searchContents(paths, cache, 'alpha', { maxResults: 2 });
    assert.equal(capped.matches.length, 2);
    assert.equal(capped.totalMatches, 4);
    assert.equal(capped.truncated, true);
  });

  it('filters by filename glob and scope', () => {
    assert.deepEqual(filterSearchPaths(paths, { filenamePattern: '*.ts' }), ['src/b.ts']);
    assert.deepEqual(filterSearchPaths(paths, { filenamePattern: 'src/**' }), ['src/a.py', 'src/b.ts']);
    assert.deepEqual(filterSearchPaths(paths, { scope: 'docs/' }), ['docs/c.md']);
    assert.deepEqual(filterSearchPaths(paths, { scope: 'src/a.py' }), ['src/a.py']);
  });

  it('stops at its time budget and says the results are partial', () => {
    const spent = searchContents(paths, cache, 'alpha', { timeBudgetMs: -1 });
    assert.equal(spent.timedOut, true);
    assert.equal(spent.filesScanned, 0);
    assert.equal(spent.truncated, true);
    const whole = searchContents(paths, cache, 'alpha', {});
    assert.equal(whole.timedOut, false);
    assert.equal(whole.filesScanned, 3);
  });

  it('runs a catastrophic-backtracking regex in linear time and finds the same lines V8 would', () => {
    const evil = `${'a'.repeat(200_000)}!\nxaaa\n`;
    const big = new ContentCache(root, 1 << 20);
    big.put('evil.txt', evil);
    const t0 = performance.now();
    const r = searchContents(['evil.txt'], big, '(a+)+$', { mode: 'regex', contextLines: 0 });
    assert.ok(performance.now() - t0 < 2000);
    assert.deepEqual(r.matches.map((m) => [m.line, m.column]), [[2, 2]]);
  });
});
