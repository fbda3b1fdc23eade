import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_HEAD, BUNDLE_TAIL, codeCacheFile, loadBundle } from '../../core/bundle-loader.ts';
import { readCacheFile } from '../../core/cache-file.ts';

/** A small CommonJS "bundle" using what the real one uses: exports, require, a dynamic import (as `$m1ndI`) and import.meta.resolve. */
const SOURCE = `'use strict';
exports.answer = 6 * 7;
exports.sep = require('node:path').sep;
exports.resolved = __m1ndImportMetaResolve('node:fs');
exports.later = () => $m1ndI('node:path').then((m) => typeof m.join);
exports.fn = function named(a, b) { return [a, b].join('+'); };
`;

function setup(): { dir: string; bundle: string; cache: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-bundle-loader-'));
  const bundle = path.join(dir, 'bundle.cjs');
  fs.writeFileSync(bundle, SOURCE);
  return { dir, bundle, cache: path.join(dir, 'cache') };
}

async function works(exports: Record<string, any>): Promise<void> {
  assert.equal(exports.answer, 42);
  assert.equal(exports.sep, path.sep);
  assert.equal(exports.resolved, 'node:fs');
  assert.equal(await exports.later(), 'function', 'a dynamic import works');
  assert.equal(exports.fn('a', 'b'), 'a+b');
}

describe('the bundle loader (V8 code cache)', function () {
  it('compiles without a cache, writes one, then loads from it; dynamic import works both ways', async () => {
    const { bundle, cache } = setup();
    const first = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(first.load, 'none');
    await works(first.exports);
    assert.equal(first.saveCache(), true);
    assert.equal(first.saveCache(), false, 'written once');
    assert.ok(fs.existsSync(codeCacheFile(cache, bundle)));
    const second = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(second.load, 'cached');
    await works(second.exports);
    assert.equal(second.saveCache(), false, 'a valid cache is not rewritten');
  });

  it('ignores a corrupt cache file (compiles, same exports) and replaces it', async () => {
    const { bundle, cache } = setup();
    loadBundle(bundle, (s) => s, cache, false).saveCache();
    const file = codeCacheFile(cache, bundle);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 10] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const corrupt = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(corrupt.load, 'corrupt');
    await works(corrupt.exports);
    assert.equal(corrupt.saveCache(), true);
    assert.equal(loadBundle(bundle, (s) => s, cache, false).load, 'cached');
    fs.writeFileSync(file, 'not a cache at all');
    const garbage = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(garbage.load, 'corrupt');
    await works(garbage.exports);
  });

  it('ignores a well-formed cache made for other code (V8 rejects it) and rewrites it', async () => {
    const { dir, bundle, cache } = setup();
    const other = path.join(dir, 'other.cjs');
    fs.writeFileSync(other, `exports.x = ${JSON.stringify('x'.repeat(500))};`);
    const made = loadBundle(other, (s) => s, cache, false);
    made.saveCache();
    // The other code's cache, checksummed and all, put where the bundle's cache goes.
    fs.mkdirSync(cache, { recursive: true });
    fs.copyFileSync(codeCacheFile(cache, other), codeCacheFile(cache, bundle));
    const rejected = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(rejected.load, 'rejected');
    await works(rejected.exports);
    assert.equal(rejected.saveCache(), true);
    assert.equal(loadBundle(bundle, (s) => s, cache, false).load, 'cached');
  });

  it('gives a dynamic import of a package the bundle requires the instance its static require has (a dual package is one instance)', async () => {
    const { dir, cache } = setup();
    const pkg = path.join(dir, 'node_modules', 'dual');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'dual', exports: { import: './esm.mjs', require: './cjs.cjs' } }));
    fs.writeFileSync(path.join(pkg, 'cjs.cjs'), 'exports.state = { started: false }; exports.start = () => { exports.state.started = true; };');
    fs.writeFileSync(path.join(pkg, 'esm.mjs'), 'export const state = { started: false }; export const start = () => { state.started = true; };');
    const esmOnly = path.join(dir, 'node_modules', 'esm-only');
    fs.mkdirSync(esmOnly, { recursive: true });
    fs.writeFileSync(path.join(esmOnly, 'package.json'), JSON.stringify({ name: 'esm-only', type: 'module', exports: { import: './index.js' } }));
    fs.writeFileSync(path.join(esmOnly, 'index.js'), 'export const kind = "esm";');
    const bundle = path.join(dir, 'dual-user.cjs');
    fs.writeFileSync(bundle, `const dual = require('dual');
exports.run = async () => { const m = await $m1ndI('dual'); m.start(); return dual.state.started; };
exports.esm = () => $m1ndI('esm-only').then((m) => m.kind);`);
    for (const round of ['none', 'cached']) {
      const resolve = (s: string) => (s === 'esm-only' ? pathToFileURL(path.join(esmOnly, 'index.js')).href : s);
      const loaded = loadBundle(bundle, resolve, cache, false, ['dual']) as { load: string; exports: any; saveCache(): boolean };
      assert.equal(loaded.load, round);
      assert.equal(await loaded.exports.run(), true, 'the dynamically imported start() changed the statically required state');
      assert.equal(await loaded.exports.esm(), 'esm', 'an ES-module-only package is imported');
      loaded.saveCache();
    }
  });

  it('compiles a bundle the build wrote wrapped as it is, with and without a cache (line numbers are the file\'s)', async () => {
    const { bundle, cache } = setup();
    // As scripts/bundle.mjs writes it: the head on the first line, the tail before the source-map comment.
    fs.writeFileSync(bundle, `${BUNDLE_HEAD}${SOURCE}exports.line = () => new Error('x').stack.split('\\n')[1];${BUNDLE_TAIL}\n//# sourceMappingURL=bundle.cjs.map\n`);
    const first = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(first.load, 'none');
    await works(first.exports);
    // Not wrapped twice (the inner function would never run: works() above would fail); frames carry the file's own lines.
    assert.match((first.exports.line as () => string)(), /bundle\.cjs:7:/);
    assert.equal(first.saveCache(), true);
    const second = loadBundle(bundle, (s) => s, cache, false);
    assert.equal(second.load, 'cached');
    await works(second.exports);
    assert.match((second.exports.line as () => string)(), /bundle\.cjs:7:/);
  });

  it('reads a cache file into the scratch buffer it fits in, and into a new one otherwise; the check holds either way', () => {
    const { bundle, cache } = setup();
    loadBundle(bundle, (s) => s, cache, false).saveCache();
    const file = codeCacheFile(cache, bundle);
    const size = fs.statSync(file).size;
    const scratch = Buffer.alloc(size + 100, 0xaa);
    const into = readCacheFile(file, scratch);
    assert.ok(Buffer.isBuffer(into));
    assert.equal(into.buffer, scratch.buffer, 'a view of the scratch buffer');
    const fresh = readCacheFile(file, Buffer.alloc(size - 1));
    assert.ok(Buffer.isBuffer(fresh));
    assert.notEqual(fresh.buffer, scratch.buffer);
    assert.deepEqual(fresh, into);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 1] ^= 1;
    fs.writeFileSync(file, bytes);
    assert.equal(readCacheFile(file, scratch), 'corrupt');
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 5));
    assert.equal(readCacheFile(file, scratch), 'corrupt', 'a truncated file');
  });

  it('keys the cache by the bundle file: a rebuilt bundle gets a new cache file', () => {
    const { bundle, cache } = setup();
    const before = codeCacheFile(cache, bundle);
    fs.writeFileSync(bundle, `${SOURCE}exports.more = 1;\n`);
    assert.notEqual(codeCacheFile(cache, bundle), before);
  });

  it('uses no cache when the folder is off, and never fails on an unwritable folder', async () => {
    const { dir, bundle } = setup();
    const off = loadBundle(bundle, (s) => s, null, false);
    assert.equal(off.load, 'none');
    assert.equal(off.cacheFile, null);
    assert.equal(off.saveCache(), false);
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, '');
    const unwritable = loadBundle(bundle, (s) => s, path.join(blocker, 'cache'), false);
    await works(unwritable.exports);
    assert.equal(unwritable.saveCache(), false);
  });
});
