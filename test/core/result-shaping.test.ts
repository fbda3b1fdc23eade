import assert from 'node:assert/strict';
import { connect } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';
import { countTokens, packToTokenBudget, packToTokenBudgetPaced } from '../../core/index.ts';
import { applyEnv, defaultSettings } from '../../core/settings.ts';

describe('result token limit', function () {
  it('cuts an oversized result under the limit as counted by the tokenizer, keeping valid JSON and the output schema', async () => {
    const h = await connect({ env: { M1ND_RESULT_TOKEN_LIMIT: '2000' }, plugins: [recorderPlugin().plugin] });
    try {
      const { result, json } = await h.call('rec_big', { agent_id: 'a', items: 5000 });
      const text = (result.content[0] as { text: string }).text;
      assert.ok(countTokens(text) <= 2000, `result has ${countTokens(text)} tokens`);
      assert.ok(json.items.length >= 1 && json.items.length < 5000);
      assert.equal(json.total, 5000, 'fields outside the cut array are untouched');
      assert.deepEqual(json.items[0], { id: 0, text: 'item number 0 with some words to count' }, 'a ranked prefix is kept');
      assert.equal(json._m1nd.truncated, true);
      assert.equal(json._m1nd.truncation.cuts[0].path, 'items');
      assert.equal(json._m1nd.truncation.cuts[0].kept + json._m1nd.truncation.cuts[0].dropped, 5000);
      assert.ok(json._m1nd.truncation.original_tokens > 2000);
      const { _m1nd, ...body } = json;
      assert.equal(_m1nd.result_tokens, countTokens(JSON.stringify(body)), 'a cut result is counted exactly');
      assert.deepEqual(result.structuredContent, json, 'structured content matches the text and validates (the client checks the output schema)');
    } finally {
      await h.close();
    }
  });

  it('leaves a result under the limit untouched and says so', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      const { result: sent, json } = await h.call('rec_big', { agent_id: 'a', items: 3 });
      assert.deepEqual(sent.structuredContent, json, 'the text (the envelope spliced into the result text) says what structuredContent says');
      assert.equal(json.items.length, 3);
      assert.equal(json._m1nd.truncated, false);
      const { _m1nd, ...result } = json;
      assert.equal(_m1nd.result_bytes, Buffer.byteLength(JSON.stringify(result)));
      assert.equal(_m1nd.result_tokens, undefined, 'not tokenised: its bytes are under the limit');
    } finally {
      await h.close();
    }
  });

  it('applies the limit to the text as sent, envelope included, measured: a result that fits with its envelope is not cut', async () => {
    // Issue 13 row 15: a limit of 400 cut a 173-token result because 300 tokens were reserved for the envelope.
    const h = await connect({ env: { M1ND_RESULT_TOKEN_LIMIT: '400' }, plugins: [recorderPlugin().plugin] });
    try {
      const { result, json } = await h.call('rec_big', { agent_id: 'a', items: 12 });
      const { _m1nd, ...body } = json;
      const bodyTokens = countTokens(JSON.stringify(body));
      assert.ok(bodyTokens > 150 && bodyTokens < 250, `the result is ${bodyTokens} tokens`);
      assert.equal(json.items.length, 12, 'nothing cut');
      assert.equal(_m1nd.truncated, false);
      assert.equal(_m1nd.result_tokens, bodyTokens, 'counted exactly: its bytes were over the limit');
      assert.ok(countTokens((result.content[0] as { text: string }).text) <= 400);
    } finally {
      await h.close();
    }
  });

  it('cuts a result that with its envelope would exceed the limit so that the text sent fits, and cuts no more than needed', async () => {
    const h = await connect({ env: { M1ND_RESULT_TOKEN_LIMIT: '400' }, plugins: [recorderPlugin().plugin] });
    try {
      const { result, json } = await h.call('rec_big', { agent_id: 'a', items: 40 });
      const sent = countTokens((result.content[0] as { text: string }).text);
      assert.ok(sent <= 400, `sent ${sent} tokens`);
      assert.equal(json._m1nd.truncated, true);
      assert.ok(json.items.length >= 1 && json.items.length < 40);
      // One more item would not have fitted (or the cut kept close to the limit).
      const { _m1nd, ...body } = json;
      assert.ok(sent > 400 - 2 * countTokens(JSON.stringify(body.items[0])) - 60, `the cut left ${400 - sent} tokens unused`);
      assert.deepEqual(result.structuredContent, json);
    } finally {
      await h.close();
    }
  });

  it('counts text that spells a special token as ordinary text instead of failing the call', async () => {
    const h = await connect({ env: { M1ND_RESULT_TOKEN_LIMIT: '100' }, plugins: [recorderPlugin().plugin] });
    try {
      const { result } = await h.call('rec_read', { agent_id: 'a', note: '<|endoftext|> '.repeat(60) });
      assert.ok(!result.isError, JSON.stringify(result.content).slice(0, 300));
      assert.ok(countTokens((result.content[0] as { text: string }).text) <= 100);
    } finally {
      await h.close();
    }
  });

  it('keeps every cut text within the limit, whatever the script, including short strings dense in tokens', async () => {
    // Strings of at most 200 characters were never cut: 40 emoji-heavy words (~180 tokens) went out over a limit of 100.
    for (const limit of [100, 150]) {
      const h = await connect({ env: { M1ND_RESULT_TOKEN_LIMIT: String(limit) }, plugins: [recorderPlugin().plugin] });
      try {
        for (const unit of ['<|endoftext|> ', 'word ', 'fn(x) => x * 2; ', 'é中😀 ']) {
          for (let repeat = 10; repeat < 90; repeat += 7) {
            const { result, json } = await h.call('rec_read', { agent_id: 'a', note: unit.repeat(repeat) });
            const text = (result.content[0] as { text: string }).text;
            const sent = countTokens(text);
            assert.ok(sent <= limit, `${JSON.stringify(unit)} × ${repeat} sent ${sent} tokens over a limit of ${limit}`);
            assert.ok(!/\\ud[89ab]/i.test(text), 'no string cut between the halves of a surrogate pair');
            if (json._m1nd.truncated) assert.match(json.note, /…\[cut\]$/);
          }
        }
      } finally {
        await h.close();
      }
    }
  });

  it('refuses a limit under 100 tokens from the environment, as the config does, naming the minimum', () => {
    assert.throws(() => applyEnv(defaultSettings('/tmp'), { M1ND_RESULT_TOKEN_LIMIT: '60' }), /M1ND_RESULT_TOKEN_LIMIT must be an integer of at least 100, got "60"/);
    assert.equal(applyEnv(defaultSettings('/tmp'), { M1ND_RESULT_TOKEN_LIMIT: '100' }).resultTokenLimit, 100);
  });
});

describe('countTokens', function () {
  it('never counts more tokens than the text has UTF-8 bytes, whatever the script, and never splits a surrogate pair', () => {
    const samples = [
      '',
      'hello world',
      JSON.stringify({ a: [1, 2, 3], b: 'text with spaces', c: { d: null } }),
      'é'.repeat(1000),
      '😀'.repeat(700),
      'x😀'.repeat(400),
      '中文字符测试'.repeat(200),
      'a'.repeat(5000),
      '<|endoftext|><|fim_prefix|>',
      'const f = (x: number) => x * 2;\n'.repeat(100),
    ];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let n = 0; n < 30; n++) {
      let s = '';
      for (let i = 0; i < 600; i++) {
        const r = rand();
        s += r < 0.5 ? String.fromCharCode(32 + Math.floor(rand() * 95)) : r < 0.8 ? String.fromCodePoint(0x80 + Math.floor(rand() * 0x7f00)) : String.fromCodePoint(0x1f300 + Math.floor(rand() * 0x300));
      }
      samples.push(s);
    }
    for (const s of samples) assert.ok(countTokens(s) <= Buffer.byteLength(s), `${countTokens(s)} tokens > ${Buffer.byteLength(s)} bytes for ${s.slice(0, 20)}`);
  });
});

describe('packToTokenBudget', function () {
  it('keeps the longest ranked prefix that fits and reports kept, dropped and used', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ rank: i, label: `node ${i} in the graph` }));
    const { kept, report } = packToTokenBudget(items, 100);
    // The longest prefix whose compact-JSON token counts add up to at most 100.
    let fit = 0;
    for (let used = 0; fit < items.length && used + countTokens(JSON.stringify(items[fit])) <= 100; fit++) used += countTokens(JSON.stringify(items[fit]));
    assert.ok(fit > 1 && fit < 100, `the budget cuts inside the list (${fit})`);
    assert.deepEqual(kept, items.slice(0, fit));
    assert.equal(report.kept + report.dropped, 100);
    assert.ok(report.used_tokens <= 100);
  });

  it('always keeps the first item even when it alone is over budget', () => {
    const { kept, report } = packToTokenBudget([{ text: 'a long sentence '.repeat(50) }, { text: 'b' }], 5);
    assert.equal(kept.length, 1);
    assert.equal(report.dropped, 1);
  });

  it('packs the same when paced, giving the caller a turn between items', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ rank: i, label: `node ${i} in the graph` }));
    let turns = 0;
    const paced = await packToTokenBudgetPaced(items, 100, async () => {
      turns++;
    });
    assert.deepEqual(paced, packToTokenBudget(items, 100));
    assert.equal(turns, paced.report.kept);
  });
});
