import assert from 'node:assert/strict';
import { connect } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';
import { countTokens, packToTokenBudget } from '../../core/index.ts';

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
      assert.deepEqual(result.structuredContent, json, 'structured content matches the text and validates (the client checks the output schema)');
    } finally {
      await h.close();
    }
  });

  it('leaves a result under the limit untouched and says so', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      const { json } = await h.call('rec_big', { agent_id: 'a', items: 3 });
      assert.equal(json.items.length, 3);
      assert.equal(json._m1nd.truncated, false);
      const { _m1nd, ...result } = json;
      assert.equal(_m1nd.result_tokens, countTokens(JSON.stringify(result)));
    } finally {
      await h.close();
    }
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
});
