/**
 * The built dashboard as it ships (dist/ui, made by `npm run build`): nothing inline that the CSP
 * would block, hashed asset names, no source maps, nothing fetched from another origin, and a
 * small packed size (issue 19's budget: under ~1 MB).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { ensureUiBuilt } from './browser-fixture.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UI = path.join(ROOT, 'dist/ui');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('the built dashboard assets (dist/ui)', function () {
  this.timeout(120_000);
  before(() => ensureUiBuilt());

  it('has an index.html with no inline script, style or event handler, loading only its own hashed assets', () => {
    const html = fs.readFileSync(path.join(UI, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 1);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs, /\bsrc="\.\/assets\/[\w-]+-[\w-]{8}\.js"/, `a script loads a hashed asset: ${attrs}`);
      assert.equal(body.trim(), '', 'no inline script');
    }
    assert.doesNotMatch(html, /<style\b/, 'no <style> element');
    assert.doesNotMatch(html, /\sstyle=/, 'no style attribute');
    assert.doesNotMatch(html, /\son[a-z]+=/i, 'no event-handler attribute');
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, 'nothing from another origin');
    assert.match(html, /<link rel="stylesheet"[^>]*href="\.\/assets\/index-[\w-]{8}\.css"/);
  });

  it('ships hashed assets without source maps, CDN URLs or eval, packed well under 1 MB', () => {
    const all = files(UI);
    const assets = all.filter((f) => path.dirname(f) === path.join(UI, 'assets'));
    assert.ok(assets.length >= 3, 'entry script, stylesheet and the graph chunk');
    for (const f of assets) assert.match(path.basename(f), /^[\w.-]+-[\w-]{8}\.(js|css)$/, `hashed name: ${f}`);
    assert.deepEqual(all.filter((f) => f.endsWith('.map')), []);
    for (const f of assets.filter((a) => a.endsWith('.js'))) {
      const js = fs.readFileSync(f, 'utf8');
      assert.doesNotMatch(js, /sourceMappingURL=/, `${path.basename(f)} points at no source map`);
      assert.doesNotMatch(js, /import\(\s*["']https?:/, `${path.basename(f)} imports nothing remote`);
      assert.doesNotMatch(js, /\beval\(|new Function\(/, `${path.basename(f)} evaluates no strings (the CSP has no unsafe-eval)`);
    }
    // npm packs with gzip: the sum of gzipped files is what the assets add to the tarball.
    const packed = all.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length, 0);
    const raw = all.reduce((sum, f) => sum + fs.statSync(f).size, 0);
    assert.ok(packed < 400_000, `dist/ui packs to ${packed} bytes (${raw} unpacked); budget ~1 MB for the whole dashboard`);
  });
});
