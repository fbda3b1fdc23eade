import assert from 'node:assert/strict';
import { jaccardAtLeast, type Shape } from '../../../plugins/structure/shapes.ts';

/** The reference Jaccard, from sets (independent of the merges under test). */
function jaccard(a: Int32Array, b: Int32Array): number {
  const inA = new Set(a);
  let both = 0;
  for (const x of b) if (inA.has(x)) both++;
  const union = a.length + b.length - both;
  return union === 0 ? 0 : both / union;
}
import { twinPairs } from '../../../plugins/structure/twin-pairs.ts';

/** A deterministic pseudo-random sorted distinct set of `size` shingles. */
function shape(seed: number, size: number): Shape {
  const out = new Set<number>();
  let x = seed * 2654435761;
  while (out.size < size) {
    x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6b43a9b5;
    out.add(x | 0);
  }
  return { shingles: Int32Array.from(out).sort(), tokens: size + 4 };
}

/** `base` with its last `changed` shingles replaced. */
function variant(base: Shape, changed: number, seed: number): Shape {
  const kept = Array.from(base.shingles.slice(0, base.shingles.length - changed));
  const extra = Array.from(shape(seed, changed).shingles);
  return { shingles: Int32Array.from(new Set([...kept, ...extra])).sort(), tokens: base.tokens };
}

describe('twinPairs (MinHash/LSH candidates, exact Jaccard)', () => {
  it('finds every planted near-copy once, scores it exactly, and nothing below the threshold', async () => {
    const shapes: Shape[] = [];
    const planted: [number, number][] = [];
    for (let i = 0; i < 300; i++) shapes.push(shape(i + 1, 40 + (i % 50)));
    // 40 near-copies (1-3 shingles of ~60 changed: Jaccard ≥ 0.9) and 20 copies of one boilerplate shape.
    for (let i = 0; i < 40; i++) {
      const base = i * 7;
      shapes.push(variant(shapes[base], 1 + (i % 3), 10_000 + i));
      planted.push([base, shapes.length - 1]);
    }
    const boiler = shape(99_999, 60);
    for (let i = 0; i < 20; i++) shapes.push(boiler);
    const pairs = await twinPairs(shapes, 0.8, 20_000);
    const key = (a: number, b: number) => `${a},${b}`;
    const got = new Set(pairs.map((p) => key(p.a, p.b)));
    assert.equal(got.size, pairs.length, 'no pair twice');
    for (const [a, b] of planted) assert.ok(got.has(key(a, b)), `planted pair ${a},${b} found`);
    for (const p of pairs) {
      assert.ok(p.a < p.b);
      assert.equal(p.ast, jaccard(shapes[p.a].shingles, shapes[p.b].shingles));
      assert.ok(p.ast >= 0.8);
    }
    // The 20 identical boilerplate shapes: all 190 pairs (one bucket, under the bucket cap).
    const boilerPairs = pairs.filter((p) => p.a >= 340 && p.b >= 340);
    assert.equal(boilerPairs.length, 190);
    // Best first.
    for (let i = 1; i < pairs.length; i++) assert.ok(pairs[i - 1].ast >= pairs[i].ast);
  });

  it('with `covered`, marks exactly the shapes that have a partner in the pair list, and returns no pairs', async () => {
    const shapes: Shape[] = [];
    for (let i = 0; i < 300; i++) shapes.push(shape(i + 1, 40 + (i % 50)));
    // Chains and cliques of near-copies: most of their pairs join shapes already marked.
    for (let i = 0; i < 60; i++) shapes.push(variant(shapes[(i * 5) % 300], 1 + (i % 4), 20_000 + i));
    for (let i = 0; i < 30; i++) shapes.push(variant(shapes[shapes.length - 1], 1, 30_000 + i));
    const boiler = shape(77_777, 50);
    for (let i = 0; i < 25; i++) shapes.push(boiler);
    for (const [threshold, rows] of [[0.6, 4], [0.8, undefined]] as const) {
      const want = new Uint8Array(shapes.length);
      for (const p of await twinPairs(shapes, threshold, Number.MAX_SAFE_INTEGER, { rows })) want[p.a] = want[p.b] = 1;
      const covered = new Uint8Array(shapes.length);
      assert.deepEqual(await twinPairs(shapes, threshold, Number.MAX_SAFE_INTEGER, { rows, covered }), []);
      assert.ok(want.reduce((n, x) => n + x, 0) > 100, 'the fixture has many shapes with a partner');
      assert.deepEqual(covered, want);
    }
  });
});

describe('LshIndex (shapes added one at a time)', () => {
  it('over thousands of shapes (its bucket table grows several times) finds every exact copy, only true pairs, and marks the same ends in cover mode', async () => {
    const { LshIndex } = await import('../../../plugins/structure/lsh-index.ts');
    const shapes: Shape[] = [];
    for (let i = 0; i < 4000; i++) shapes.push(shape(i + 1, 20 + (i % 40)));
    const copies: [number, number][] = [];
    for (let i = 0; i < 50; i++) {
      shapes.push({ shingles: shapes[i * 37].shingles.slice(), tokens: shapes[i * 37].tokens });
      copies.push([i * 37, shapes.length - 1]);
    }
    const pairs = new LshIndex(0.7, { rows: 4, pairs: true });
    const cover = new LshIndex(0.7, { rows: 4, pairs: false });
    for (const s of shapes) {
      pairs.add(s);
      cover.add(s);
    }
    const found = new Set(pairs.pairs().map((p) => `${p.a},${p.b}`));
    for (const [a, b] of copies) assert.ok(found.has(`${a},${b}`), `copy ${a},${b}`);
    const ends = new Uint8Array(shapes.length);
    for (const p of pairs.pairs()) {
      assert.ok(p.a < p.b);
      assert.equal(p.ast, jaccard(shapes[p.a].shingles, shapes[p.b].shingles));
      assert.ok(p.ast >= 0.7);
      ends[p.a] = ends[p.b] = 1;
    }
    for (let i = 0; i < shapes.length; i++) assert.equal(cover.covered(i), ends[i] === 1, `shape ${i}`);
  });

  it('reads a Jaccard under a threshold as −1 and one at or over it exactly, pairs right at the threshold included', () => {
    let over = 0;
    let under = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const a = shape(seed, 5 + (seed % 97));
      // Variants that share from all to none of a's shingles, plus sizes that put the Jaccard exactly on a threshold.
      const b = variant(a, seed % (a.shingles.length + 1), seed + 10_000);
      for (const t of [0.3, 0.5, 0.6, 0.8, 1]) {
        const exact = jaccard(a.shingles, b.shingles);
        const read = jaccardAtLeast(a.shingles, b.shingles, t);
        if (exact >= t) {
          assert.equal(read, exact, `seed ${seed}, t ${t}`);
          over++;
        } else {
          assert.equal(read, -1, `seed ${seed}, t ${t}`);
          under++;
        }
      }
    }
    // Exactly on the threshold: 3 shared of 5 in the union is 0.6; 4 of 5 is 0.8.
    const x = Int32Array.from([1, 2, 3, 4]);
    assert.equal(jaccardAtLeast(x, Int32Array.from([1, 2, 3, 5]), 0.6), 0.6);
    assert.equal(jaccardAtLeast(x, Int32Array.from([1, 2, 3, 4, 5]), 0.8), 0.8);
    assert.equal(jaccardAtLeast(x, Int32Array.from([1, 2, 6, 7]), 0.6), -1);
    assert.equal(jaccardAtLeast(new Int32Array(0), new Int32Array(0), 0.5), -1, 'two empty sets: 0');
    assert.ok(over > 100 && under > 100, `${over} over, ${under} under`);
  });
});
