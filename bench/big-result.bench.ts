/**
 * "No call holds the event loop for long" (issue 11 §2) for the host's own work on a large result:
 * a verb returns N ranked items (0.3–3.9 MB of JSON); the host serialises it once, counts it and cuts
 * it to the result token limit. Printed per size: the call's wall time and the longest stretch
 * between two turns of the event loop during it (the handler's own building of the value included),
 * against the same run's baselines: building the value and `JSON.stringify` of it (the handler's turn
 * and the serialisation every result costs: a stretch the host cannot split) and one `countTokens` of
 * its text (what the shaping held the loop for in one go before).
 *
 *   node --import tsx/esm bench/run.ts big-result
 */
import { Type } from '@sinclair/typebox';
import { AgentId, countTokens, definePlugin, defineVerb } from '../core/index.ts';
import { connect } from '../test/helpers/mcp.ts';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, text: `item number ${i} with some words to count` }));

const plugin = definePlugin({
  name: 'big-result-bench',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(
      defineVerb({
        name: 'bench_big',
        description: 'Returns n ranked items.',
        input: Type.Object({ agent_id: AgentId, n: Type.Integer() }),
        effect: 'read',
        handler: (a) => ({ items: items(a.n), total: a.n }),
      }),
    );
  },
});

/** The longest gap between setImmediate turns while `work` runs, and its wall time. */
async function longestStretch(work: () => Promise<unknown>): Promise<{ wallMs: number; stretchMs: number }> {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  await work();
  running = false;
  const ended = performance.now();
  return { wallMs: ended - started, stretchMs: Math.max(longest, ended - last) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(): Promise<void> {
  const h = await connect({ plugins: [plugin] });
  try {
    countTokens('load the tables');
    await h.call('bench_big', { agent_id: 'a', n: 3 });
    for (const n of [5_000, 20_000, 60_000]) {
      const walls: number[] = [];
      const stretches: number[] = [];
      const stringify: number[] = [];
      const counts: number[] = [];
      for (let round = 0; round < 5; round++) {
        const m = await longestStretch(() => h.call('bench_big', { agent_id: 'a', n }));
        walls.push(m.wallMs);
        stretches.push(m.stretchMs);
        let t = performance.now();
        const value = { items: items(n), total: n };
        const text = JSON.stringify(value);
        stringify.push(performance.now() - t);
        t = performance.now();
        countTokens(text);
        counts.push(performance.now() - t);
      }
      const mb = (Buffer.byteLength(JSON.stringify({ items: items(n), total: n })) / 2 ** 20).toFixed(2);
      console.log(
        `big result: ${n} items (${mb} MB) cut to the limit: call ${median(walls).toFixed(0)} ms, longest loop stretch ${median(stretches).toFixed(1)} ms (median of 5); ` +
          `baselines: the value built and JSON.stringify'd ${median(stringify).toFixed(1)} ms, one countTokens of its text ${median(counts).toFixed(1)} ms; ` +
          `stretch / build+stringify = ${(median(stretches) / median(stringify)).toFixed(2)}, stretch / countTokens = ${(median(stretches) / median(counts)).toFixed(2)}`,
      );
    }
  } finally {
    await h.close();
  }
}
