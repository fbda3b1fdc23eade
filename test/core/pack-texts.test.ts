import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { countTokens, packTextsToTokenBudget, packToTokenBudget } from '../../core/tokens.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('packTextsToTokenBudget (bytes first, tokens only when bytes cannot settle it)', () => {
  const rows = Array.from({ length: 12 }, (_, i) => ({ id: `function:src/area${i}/mod${i}.ts#step${i}`, relation: 'calls', confidence: 1, line: 10 + i }));
  const text = (r: unknown) => JSON.stringify(r);

  it('keeps everything without a token count when the texts fit the budget in UTF-8 bytes', () => {
    const bytes = rows.reduce((n, r) => n + Buffer.byteLength(text(r)), 0);
    const { kept, report } = packTextsToTokenBudget(rows, bytes, text);
    assert.equal(kept.length, rows.length);
    assert.deepEqual(report, { requested_tokens: bytes, used_bytes: bytes, kept: rows.length, dropped: 0 });
  });

  it('cuts exactly where the token-counting packer cuts when the bytes exceed the budget, and reports the exact count', () => {
    for (const budget of [1, 30, 100, 200, 350]) {
      const exact = packToTokenBudget(rows, budget, (r) => countTokens(text(r)));
      const { kept, report } = packTextsToTokenBudget(rows, budget, text);
      assert.deepEqual(kept, exact.kept, `budget ${budget}`);
      assert.equal(report.used_tokens, exact.report.used_tokens);
      assert.equal(report.kept, exact.report.kept);
      assert.equal(report.dropped, exact.report.dropped);
      assert.equal(report.used_bytes, kept.reduce((n, r) => n + Buffer.byteLength(text(r)), 0));
    }
  });

  it('does not load the tokenizer for texts that fit in bytes, and loads it when they do not (fresh process)', () => {
    const script = `
      import { packTextsToTokenBudget, tokenizerLoaded } from './core/tokens.ts';
      const items = ['alpha', 'beta', 'γάμμα 🙂'];
      const a = packTextsToTokenBudget(items, 100, (s) => s);
      const before = tokenizerLoaded();
      const b = packTextsToTokenBudget(items, 4, (s) => s);
      console.log(JSON.stringify({ a: a.report, before, after: tokenizerLoaded(), b: b.report }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
    assert.equal(out.before, false, 'a fit in bytes loaded the tokenizer');
    assert.equal(out.a.used_tokens, undefined);
    assert.equal(out.after, true);
    // 'alpha' and 'beta' are one token each (9 bytes, over the budget of 4): counted, both kept; the third would pass 4.
    assert.equal(out.b.used_tokens, 2);
    assert.equal(out.b.kept, 2);
  });

  it('tokenizerReady loads the tables in a turn of its own, after work already queued, and then packing counts with them (fresh process)', () => {
    const script = `
      import { packToTokenBudgetPaced, tokenizerLoaded, tokenizerReady } from './core/tokens.ts';
      let seenByQueued;
      setImmediate(() => (seenByQueued = tokenizerLoaded()));
      const ready = tokenizerReady();
      const inCallerTurn = tokenizerLoaded();
      await ready;
      const after = tokenizerLoaded();
      const packed = await packToTokenBudgetPaced(['alpha', 'beta'], 10, async () => {}, (s) => s.length);
      console.log(JSON.stringify({ inCallerTurn, seenByQueued, after, kept: packed.report.kept }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
    assert.deepEqual(out, { inCallerTurn: false, seenByQueued: false, after: true, kept: 2 });
  });
});
