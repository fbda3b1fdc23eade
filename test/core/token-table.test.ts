import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { countTokens as reference } from 'gpt-tokenizer';
import { buildRankTable, deserializeRankTable, serializeRankTable, tableCounter, type RankTable } from '../../core/token-table.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** Deterministic pseudo-random strings over ASCII, Latin, CJK, emoji, the byte-order mark and lone surrogates. */
function fuzzTexts(n: number): string[] {
  let seed = 12345;
  const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pools = [
    () => String.fromCharCode(32 + Math.floor(next() * 95)),
    () => ' \n\t'[Math.floor(next() * 3)],
    () => String.fromCharCode(0xc0 + Math.floor(next() * 0x180)),
    () => String.fromCharCode(0x4e00 + Math.floor(next() * 2000)),
    () => String.fromCodePoint(0x1f600 + Math.floor(next() * 80)),
    () => '\uFEFF',
    () => (next() < 0.5 ? '\uD83D' : '\uDE00'),
    () => ['createNitro', 'function', '<|endoftext|>', '"id":', 'using', '\uFEFFusing'][Math.floor(next() * 6)],
  ];
  return Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(next() * 60) }, () => pools[Math.floor(next() * pools.length)]()).join(''));
}

describe('the o200k rank table (gpt-tokenizer\'s counter without its Map)', function () {
  this.timeout(120_000);
  let table: RankTable;
  let count: (text: string) => number;

  before(() => {
    const ranks = require('gpt-tokenizer/bpeRanks/o200k_base').default;
    const built = buildRankTable(ranks);
    assert.ok(built, 'o200k_base meets the table\'s conditions');
    // Through the cache file's form, as a later process reads it.
    table = deserializeRankTable(serializeRankTable(built))!;
    assert.ok(table);
    count = tableCounter(table);
  });

  it('counts every source file of core/ and plugins/graph/ exactly as gpt-tokenizer', () => {
    const files = [...fs.readdirSync(path.join(ROOT, 'core')).map((f) => path.join(ROOT, 'core', f)), ...fs.readdirSync(path.join(ROOT, 'plugins/graph')).map((f) => path.join(ROOT, 'plugins/graph', f))].filter((f) => f.endsWith('.ts'));
    assert.ok(files.length > 40);
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      assert.equal(count(text), reference(text, AS_TEXT), f);
    }
  });

  it('counts mixed scripts, emoji, special-token text, byte-order marks and lone surrogates exactly as gpt-tokenizer', () => {
    const fixed = ['', ' ', '\uFEFF', '\uFEFFusing System;', 'a\uFEFFb', '\uD800', 'x\uDC00y', '日本語のテキスト', 'γάμμα — naïve café', '👩‍👩‍👧 🙂', '<|endoftext|><|endofprompt|>', JSON.stringify({ id: 'function:src/a.ts#f', score: 0.25 })];
    for (const text of [...fixed, ...fuzzTexts(3000)]) assert.equal(count(text), reference(text, AS_TEXT), JSON.stringify(text));
  });

  it('reads back only a buffer whose lengths add up', () => {
    const buf = serializeRankTable(table);
    assert.equal(deserializeRankTable(buf.subarray(0, buf.length - 1)), null);
    assert.equal(deserializeRankTable(new Uint8Array(8)), null);
    // An unaligned copy still reads (copied to aligned memory).
    const shifted = new Uint8Array(buf.length + 1).subarray(1);
    shifted.set(buf);
    const again = deserializeRankTable(shifted)!;
    assert.equal(tableCounter(again)('hello createNitro'), reference('hello createNitro', AS_TEXT));
  });

  it('refuses a rank list whose lookups would differ from the package\'s (two tokens with the same bytes)', () => {
    assert.equal(buildRankTable(['a', 'b', 'ab', 'a']), null);
    assert.equal(buildRankTable(['a', '\uD800']), null);
    assert.ok(buildRankTable(['a', 'b', 'ab']));
  });
});
