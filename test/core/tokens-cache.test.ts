import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * In a fresh process: counts a mixed corpus with core/tokens.ts (rank table cache in `cache`) and
 * with gpt-tokenizer's own entry, and reports how the table was loaded.
 */
function countIn(cache: string): { load: string; ours: number[]; theirs: number[] } {
  const script = `
    import { countTokens, useTokenizerCache, tokenizerRankLoad } from './core/tokens.ts';
    import { countTokens as reference } from 'gpt-tokenizer';
    useTokenizerCache(${JSON.stringify(cache)});
    const corpus = [
      'hello world', 'export function add(a: number, b: number) { return a + b; }', 'γάμμα δέλτα — naïve café',
      '日本語のテキストと漢字', 'emoji 🙂🚀 and a ZWJ 👩‍👩‍👧', '<|endoftext|> is text here', 'x'.repeat(700), '  \\n\\t  spaced   out  ',
      JSON.stringify({ nodes: Array.from({ length: 40 }, (_, i) => ({ id: 'function:src/m' + i + '.ts#f' + i, score: i / 7 })) }),
    ];
    const ours = corpus.map((t) => countTokens(t));
    const theirs = corpus.map((t) => (t.length > 256 ? ours[corpus.indexOf(t)] : reference(t, { disallowedSpecial: new Set() })));
    console.log(JSON.stringify({ load: tokenizerRankLoad(), ours, theirs }));`;
  return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

describe('tokenizer rank table cache', function () {
  this.timeout(240_000);

  it('counts exactly as gpt-tokenizer from the module, from the rank table, from the cached rank list, and after corrupt caches', () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-tokens-cache-'));
    const first = countIn(cache);
    assert.equal(first.load, 'module');
    assert.deepEqual(first.ours, first.theirs, 'counts equal gpt-tokenizer o200k_base');
    const list = fs.readdirSync(cache).filter((n) => n.startsWith('gpt-tokenizer-o200k-'));
    const tables = fs.readdirSync(cache).filter((n) => n.startsWith('gpt-tokenizer-table-o200k-'));
    assert.equal(list.length, 1, 'the rank list was cached');
    assert.equal(tables.length, 1, 'the rank table was cached');
    const second = countIn(cache);
    assert.equal(second.load, 'table', 'a later process reads the rank table (core/token-table.ts)');
    assert.deepEqual(second.ours, first.ours);
    const corrupt = (name: string) => {
      const file = path.join(cache, name);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 100] ^= 0x55;
      fs.writeFileSync(file, bytes);
    };
    corrupt(tables[0]);
    const third = countIn(cache);
    assert.equal(third.load, 'cached', 'a corrupt table is ignored: the cached rank list is read');
    assert.deepEqual(third.ours, first.ours);
    assert.equal(countIn(cache).load, 'table', 'and the table rewritten');
    corrupt(tables[0]);
    corrupt(list[0]);
    const fifth = countIn(cache);
    assert.equal(fifth.load, 'module', 'both corrupt: the module');
    assert.deepEqual(fifth.ours, first.ours);
    assert.equal(countIn(cache).load, 'table', 'and both rewritten');
  });
});
