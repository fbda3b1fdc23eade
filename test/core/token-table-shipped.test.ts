import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens as reference } from 'gpt-tokenizer';
import { shippedTable, shippedTableName, tableCounter, writeShippedTable } from '../../core/token-table.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/gpt-tokenizer/package.json'), 'utf8')) as { version: string }).version;
const CORPUS = ['hello world', 'export function add(a: number, b: number) { return a + b; }', 'γάμμα δέλτα — naïve café', '日本語のテキストと漢字', 'emoji 🙂🚀 and a ZWJ 👩‍👩‍👧', '<|endoftext|> is text here', '  \n\t  spaced   out  '];
const expected = CORPUS.map((t) => reference(t, { disallowedSpecial: new Set() }));

describe('the tokenizer rank table shipped in dist/', function () {
  this.timeout(240_000);

  it('is written under the installed gpt-tokenizer version, read back, and counts as the package does', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-shipped-table-'));
    const file = writeShippedTable(dir);
    assert.equal(file, path.join(dir, `o200k-table-${VERSION}.bin`));
    assert.equal(shippedTableName(), `o200k-table-${VERSION}.bin`);
    assert.equal(fs.statSync(file!).mode & 0o777, 0o644, 'readable by every user of an installed package');
    const table = shippedTable(dir);
    assert.ok(table, 'read back');
    const count = tableCounter(table);
    assert.deepEqual(
      CORPUS.map((t) => count(t)),
      expected,
    );
  });

  it('is not read under another version\'s name, nor when damaged', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-shipped-table-'));
    const file = writeShippedTable(dir)!;
    fs.renameSync(file, path.join(dir, 'o200k-table-0.0.1.bin'));
    assert.equal(shippedTable(dir), null, 'another gpt-tokenizer version\'s table is not used');
    fs.renameSync(path.join(dir, 'o200k-table-0.0.1.bin'), file);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 1000] ^= 0x21;
    fs.writeFileSync(file, bytes);
    assert.equal(shippedTable(dir), null, 'a damaged table fails its check');
  });

  it('is what a process of the built package loads with an empty cache folder, which it leaves empty', () => {
    if (!fs.existsSync(path.join(ROOT, 'dist/core', `o200k-table-${VERSION}.bin`))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-shipped-cache-'));
    const script = `
      import { countTokens, useTokenizerCache, tokenizerRankLoad } from './dist/core/tokens.js';
      useTokenizerCache(${JSON.stringify(cache)});
      const corpus = ${JSON.stringify(CORPUS)};
      const sync = corpus.map((t) => countTokens(t));
      console.log(JSON.stringify({ load: tokenizerRankLoad(), sync }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })) as { load: string; sync: number[] };
    assert.equal(out.load, 'shipped');
    assert.deepEqual(out.sync, expected);
    assert.deepEqual(fs.readdirSync(cache), [], 'nothing built or cached');
    // The async load (a verb about to count) takes the same table, without a worker thread.
    const asyncScript = `
      import { countTokens, tokenizerReady, useTokenizerCache, tokenizerRankLoad } from './dist/core/tokens.js';
      useTokenizerCache(${JSON.stringify(cache)});
      await tokenizerReady();
      console.log(JSON.stringify({ load: tokenizerRankLoad(), n: countTokens(${JSON.stringify(CORPUS[1])}) }));`;
    const asyncOut = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', asyncScript], { cwd: ROOT, encoding: 'utf8' })) as { load: string; n: number };
    assert.deepEqual(asyncOut, { load: 'shipped', n: expected[1] });
  });
});
