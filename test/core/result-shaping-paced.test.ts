import assert from 'node:assert/strict';
import { connect } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';
import { countTokens, warmTokenizer } from '../../core/tokens.ts';
import { countTokensPaced } from '../../core/tokens-paced.ts';
import { serialise, shapeToTokenLimit, shapeToTokenLimitPaced } from '../../core/shaping.ts';

/** Counts the event loop's turns (setImmediate) while `work` runs. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { value: await work(), turns };
  } finally {
    running = false;
  }
}

const bigResult = (n: number) => ({ items: Array.from({ length: n }, (_, i) => ({ id: i, text: `item number ${i} with some words to count` })), total: n });

describe('large results, counted and cut in paced steps', function () {
  before(() => warmTokenizer());

  it('counts a long text exactly as countTokens does, whatever its script or runs, giving the event loop turns', async () => {
    const texts = [
      serialise({ items: Array.from({ length: 3000 }, (_, i) => ({ id: i, t: `héllo wörld ${i} 😀 <|endoftext|>` })) }),
      'a'.repeat(100_000),
      ('word '.repeat(5000) + 'x'.repeat(700) + ' ').repeat(5),
      '  \n\n\t  '.repeat(20_000),
      '日本語のテキスト'.repeat(5000),
      'x😀'.repeat(30_000),
      'short text',
    ];
    for (const text of texts) assert.equal(await countTokensPaced(text), countTokens(text), `${text.slice(0, 20)}… (${text.length} chars)`);
    const text = serialise(bigResult(20_000));
    const { value, turns } = await turnsDuring(() => countTokensPaced(text, 1));
    assert.equal(value, countTokens(text));
    assert.ok(turns >= 5, `a 1.3 MB count in slices of 1 ms gave the loop ${turns} turns`);
  });

  it('counts long runs of whitespace in linear time, as it counts long runs without whitespace', () => {
    // One 140K-character piece of blank lines took 13 s of BPE merges (quadratic in a piece's length).
    for (const text of ['  \n\n\t  '.repeat(20_000), ' \u00a0'.repeat(70_000), `.${'\n'.repeat(140_000)}`, 'x'.repeat(140_000)]) {
      const started = performance.now();
      const tokens = countTokens(text);
      const ms = performance.now() - started;
      assert.ok(ms < 2000, `${JSON.stringify(text.slice(0, 6))}… counted in ${ms.toFixed(0)} ms`);
      assert.ok(tokens > 0 && tokens <= Buffer.byteLength(text));
    }
  });

  it('cuts exactly as the one-go shaping does, and leaves the handler value untouched', async () => {
    const value = { a: bigResult(3000), b: [{ list: Array.from({ length: 400 }, (_, i) => `entry ${i} ${'long words '.repeat(8)}`) }], note: 'n'.repeat(5000) };
    const before = JSON.stringify(value);
    for (const limit of [100, 2000, 9000]) {
      const once = shapeToTokenLimit(value, limit);
      const { value: paced } = await turnsDuring(() => shapeToTokenLimitPaced(value, limit));
      assert.equal(paced.text, once.text);
      assert.equal(paced.tokens, once.tokens);
      assert.deepEqual(paced.truncation, once.truncation);
      assert.ok(paced.tokens! <= limit && paced.tokens === countTokens(paced.text));
    }
    assert.equal(JSON.stringify(value), before, 'only copies of the containers on the way to a cut are changed');
  });

  it('answers another request while it shapes a multi-megabyte result, and sends that result cut under the limit with its exact original count', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      await h.call('rec_big', { agent_id: 'a', items: 3 }); // the tokenizer loaded, the verb compiled
      const order: string[] = [];
      const big = h.call('rec_big', { agent_id: 'a', items: 60_000 }).then((r) => (order.push('big'), r));
      const small = h.call('rec_read', { agent_id: 'b' }).then((r) => (order.push('small'), r));
      const [{ result, json }] = await Promise.all([big, small]);
      assert.deepEqual(order, ['small', 'big'], 'the small call was answered while the big result was counted and cut');
      const text = (result.content[0] as { text: string }).text;
      assert.ok(countTokens(text) <= 20_000);
      assert.equal(json._m1nd.truncated, true);
      assert.equal(json._m1nd.truncation.original_tokens, countTokens(serialise(bigResult(60_000))));
      assert.equal(json._m1nd.truncation.cuts[0].kept + json._m1nd.truncation.cuts[0].dropped, 60_000);
      assert.deepEqual(json.items.slice(0, 2), bigResult(2).items);
    } finally {
      await h.close();
    }
  });
});
