import assert from 'node:assert/strict';
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import { runBail, runSeries, runWaterfall } from '../../core/hook-run.ts';

/** Taps of every kind on a hook: sync, callback at once, callback later, promise. */
type Kind = 'sync' | 'now' | 'later' | 'promise';
const KINDS: Kind[] = ['sync', 'now', 'later', 'promise'];

function tapAll(hook: any, kinds: Kind[], body: (i: number, ...args: any[]) => unknown): void {
  kinds.forEach((kind, i) => {
    const name = `t${i}`;
    if (kind === 'sync') hook.tap(name, (...args: any[]) => body(i, ...args));
    else if (kind === 'promise') hook.tapPromise(name, async (...args: any[]) => body(i, ...args));
    else
      hook.tapAsync(name, (...args: any[]) => {
        const done = args.pop();
        const run = () => {
          try {
            done(null, body(i, ...args));
          } catch (error) {
            done(error);
          }
        };
        if (kind === 'now') run();
        else setImmediate(run);
      });
  });
}

/** Every sequence of three tap kinds. */
const SEQUENCES = KINDS.flatMap((a) => KINDS.flatMap((b) => KINDS.map((c) => [a, b, c])));

async function outcome(run: () => unknown): Promise<{ value?: unknown; error?: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('core/hook-run', () => {
  it('runs a bail hook as tapable does for every mix of tap kinds, bailing, passing and throwing', async () => {
    for (const kinds of SEQUENCES) {
      for (const bailAt of [-1, 0, 1, 2]) {
        for (const throwAt of [-1, 1]) {
          const make = (seen: number[]) => {
            const hook = new AsyncSeriesBailHook<[string], string | undefined>(['x']);
            tapAll(hook, kinds, (i, x: string) => {
              seen.push(i);
              if (i === throwAt) throw new Error(`boom ${i}`);
              return i === bailAt ? `${x}:${i}` : undefined;
            });
            return hook;
          };
          const seenT: number[] = [];
          const seenR: number[] = [];
          const hookT = make(seenT);
          const hookR = make(seenR);
          const expected = await outcome(() => hookT.promise('a'));
          const got = await outcome(() => runBail(hookR, 'a'));
          assert.deepEqual(got, expected, `${kinds.join(',')} bail ${bailAt} throw ${throwAt}`);
          assert.deepEqual(seenR, seenT);
        }
      }
    }
  });

  it('runs a series hook as tapable does for every mix of tap kinds', async () => {
    for (const kinds of SEQUENCES) {
      for (const throwAt of [-1, 0, 2]) {
        const make = (seen: number[]) => {
          const hook = new AsyncSeriesHook<[number[]]>(['x']);
          tapAll(hook, kinds, (i, x: number[]) => {
            if (i === throwAt) throw new Error(`boom ${i}`);
            x.push(i);
          });
          return [hook, seen] as const;
        };
        const [hookT, seenT] = make([]);
        const [hookR, seenR] = make([]);
        const expected = await outcome(() => hookT.promise(seenT));
        const got = await outcome(() => runSeries(hookR, seenR));
        assert.deepEqual(got, expected, `${kinds.join(',')} throw ${throwAt}`);
        assert.deepEqual(seenR, seenT);
      }
    }
  });

  it('runs a waterfall hook as tapable does: a result that is not undefined replaces the value', async () => {
    for (const kinds of SEQUENCES) {
      for (const skipAt of [-1, 1]) {
        const make = () => {
          const hook = new AsyncSeriesWaterfallHook<[string, string]>(['value', 'call']);
          tapAll(hook, kinds, (i, value: string, call: string) => (i === skipAt ? undefined : `${value}+${i}${call}`));
          return hook;
        };
        const expected = await outcome(() => make().promise('v', '!'));
        const got = await outcome(() => runWaterfall(make(), 'v', '!'));
        assert.deepEqual(got, expected, `${kinds.join(',')} skip ${skipAt}`);
      }
    }
  });

  it('answers with a plain value, not a promise, when every tap is synchronous or calls back at once', () => {
    const bail = new AsyncSeriesBailHook<[number], number | undefined>(['x']);
    bail.tap('a', () => undefined);
    bail.tapAsync('b', (x, done) => done(null, x + 1));
    assert.equal(runBail(bail, 1), 2);
    const waterfall = new AsyncSeriesWaterfallHook<[number, null]>(['x', 'y']);
    waterfall.tap('a', (x) => x * 10);
    assert.equal(runWaterfall(waterfall, 3, null), 30);
    const series = new AsyncSeriesHook<[number[]]>(['x']);
    series.tapAsync('a', (x, done) => {
      x.push(1);
      done();
    });
    const seen: number[] = [];
    assert.equal(runSeries(series, seen), undefined);
    assert.deepEqual(seen, [1]);
  });

  it('refuses a promise tap that returns no promise, as tapable does', async () => {
    const hook = new AsyncSeriesHook<[number]>(['x']);
    hook.tapPromise('bad', (() => 1) as never);
    await assert.rejects(async () => runSeries(hook, 0), /did not return promise/);
  });

  it('goes through tapable when the hook has an interceptor, which then sees every tap', async () => {
    const hook = new AsyncSeriesBailHook<[number], number | undefined>(['x']);
    const seen: string[] = [];
    hook.intercept({ tap: (tap) => void seen.push(tap.name) });
    hook.tap('a', () => undefined);
    hook.tap('b', (x) => x + 1);
    assert.equal(await runBail(hook, 1), 2);
    assert.deepEqual(seen, ['a', 'b']);
  });
});
