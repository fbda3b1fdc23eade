/**
 * A first load of the tokenizer's tables with no rank table in the cache folder (a first run):
 * `tokenizerReady` builds the table in a worker thread (core/token-table-worker.ts), which caches it,
 * and the main thread only reads its bytes. Each case runs in a fresh process (the tables load once
 * per process); the main thread's own CPU time is read from Linux's schedstat.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function firstLoad(cache: string | null, how: 'ready' | 'count'): { load: string; mainMs: number; ours: number[]; theirs: number[] } {
  const script = `
    import { existsSync, readFileSync } from 'node:fs';
    import { countTokens, tokenizerReady, useTokenizerCache, tokenizerRankLoad } from './core/tokens.ts';
    import { countTokens as reference } from 'gpt-tokenizer';
    const stat = '/proc/self/task/' + process.pid + '/schedstat';
    const mainMs = () => (existsSync(stat) ? Number(readFileSync(stat, 'utf8').split(' ')[0]) / 1e6 : 0);
    useTokenizerCache(${JSON.stringify(cache)});
    const corpus = ['hello world', 'export function add(a: number, b: number) { return a + b; }', 'γάμμα — naïve café 日本語 🙂🚀', '<|endoftext|> is text here'];
    const t = mainMs();
    if (${JSON.stringify(how)} === 'ready') await tokenizerReady();
    else countTokens('x');
    const spent = mainMs() - t;
    const ours = corpus.map((s) => countTokens(s));
    const theirs = corpus.map((s) => reference(s, { disallowedSpecial: new Set() }));
    console.log(JSON.stringify({ load: tokenizerRankLoad(), mainMs: spent, ours, theirs }));`;
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

describe('tokenizerReady with no rank table cached', function () {
  this.timeout(240_000);

  it('builds the table in a worker thread, caches it, counts as gpt-tokenizer, and costs the main thread a fraction of a load on it', () => {
    const cache = mkdtempSync(path.join(tmpdir(), 'm1nd-tokens-offthread-'));
    const first = firstLoad(cache, 'ready');
    assert.equal(first.load, 'worker');
    assert.deepEqual(first.ours, first.theirs);
    assert.equal(readdirSync(cache).filter((n) => n.startsWith('gpt-tokenizer-table-o200k-')).length, 1, 'the worker cached the table');
    const second = firstLoad(cache, 'ready');
    assert.equal(second.load, 'table', 'a later process reads the cached table');
    // A first count on the main thread compiles the rank module and builds the table there.
    const onMain = firstLoad(mkdtempSync(path.join(tmpdir(), 'm1nd-tokens-offthread-')), 'count');
    assert.equal(onMain.load, 'module');
    if (existsSync(`/proc/self/task/${process.pid}/schedstat`)) {
      assert.ok(first.mainMs < onMain.mainMs / 2, `main thread ${first.mainMs.toFixed(0)} ms off-thread vs ${onMain.mainMs.toFixed(0)} ms loading there`);
    }
  });

  it('builds it off-thread with no cache folder too', () => {
    const r = firstLoad(null, 'ready');
    assert.equal(r.load, 'worker');
    assert.deepEqual(r.ours, r.theirs);
  });

  it('loads the counter\'s modules each in an event-loop turn of its own, for a table built off-thread and for a cached one', () => {
    // Each first top-level require of gpt-tokenizer's counter modules is stamped with the loop turn it ran in (a
    // setImmediate chain counts turns); in one turn they held the loop ~60 ms in a server from sources.
    const cache = mkdtempSync(path.join(tmpdir(), 'm1nd-tokens-turns-'));
    const turns = () => {
      const script = `
        import Module from 'node:module';
        import { tokenizerReady, useTokenizerCache, tokenizerRankLoad } from './core/tokens.ts';
        useTokenizerCache(${JSON.stringify(cache)});
        let turn = 0, running = true;
        const tick = () => { turn++; if (running) setImmediate(tick); };
        setImmediate(tick);
        const seen = [];
        let depth = 0;
        const load = Module._load;
        Module._load = function (request, ...rest) {
          const top = depth === 0 && /^gpt-tokenizer\\/cjs\\/(BytePairEncodingCore|modelParams|utfUtil)$/.test(request);
          if (top && !seen.some((s) => s.request === request)) seen.push({ request, turn });
          depth++;
          try { return load.call(this, request, ...rest); } finally { depth--; }
        };
        await tokenizerReady();
        running = false;
        console.log(JSON.stringify({ load: tokenizerRankLoad(), seen }));`;
      return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as { load: string; seen: { request: string; turn: number }[] };
    };
    for (const expected of ['worker', 'table']) {
      const r = turns();
      assert.equal(r.load, expected);
      assert.equal(r.seen.length, 3, JSON.stringify(r));
      assert.equal(new Set(r.seen.map((x) => x.turn)).size, 3, `each module in a turn of its own: ${JSON.stringify(r)}`);
    }
  });
});
