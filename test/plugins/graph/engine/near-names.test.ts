import assert from 'node:assert/strict';
import { boundedEdits } from '../../../../plugins/graph/engine/near-names.ts';

/** Optimal string alignment distance, the whole matrix (the reference). */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

describe('boundedEdits (the did-you-mean distance)', () => {
  it('agrees with the full optimal-string-alignment distance up to its cap, on random words', () => {
    let s = 7;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const word = (n: number) => Array.from({ length: n }, () => 'abcd'[Math.floor(rand() * 4)]).join('');
    for (let k = 0; k < 3000; k++) {
      const a = word(1 + Math.floor(rand() * 14));
      const b = rand() < 0.5 ? word(1 + Math.floor(rand() * 14)) : a.slice(0, Math.floor(rand() * a.length)) + word(Math.floor(rand() * 3)) + a.slice(Math.floor(rand() * a.length));
      const cap = 1 + Math.floor(rand() * 3);
      const want = osa(a, b);
      assert.equal(boundedEdits(a, b, cap, false), want <= cap ? want : cap + 1, `${a} → ${b}, cap ${cap}`);
    }
  });

  it('counts a swap of neighbours as one edit and ignores ASCII case when folded', () => {
    assert.equal(boundedEdits('laod', 'load', 1), 1);
    assert.equal(boundedEdits('HeaderParser', 'headerparsr', 2), 1);
    assert.equal(boundedEdits('Builder', 'buildr', 2, false), 2);
    assert.equal(boundedEdits('builder', 'buildr', 2, false), 1);
    assert.equal(boundedEdits('abcdefgh', 'ab', 2), 3, 'more than the cap: cap + 1');
  });
});

describe('nearNames (did-you-mean over the graph)', () => {
  it('reads `Class.#name` as a private member, not as a path and a name', async () => {
    const { CodeGraph } = await import('../../../../plugins/graph/engine/graph.ts');
    const { nearNames } = await import('../../../../plugins/graph/engine/near-names.ts');
    const g = new CodeGraph();
    const node = (id: string, kind: string, label: string, path: string, qualifiedName?: string) => ({ id, kind, label, path, startLine: 1, endLine: 2, language: 'typescript', ...(qualifiedName ? { qualifiedName } : {}) }) as never;
    g.upsertNode(node('file:src/driver.ts', 'file', 'driver.ts', 'src/driver.ts'));
    g.upsertNode(node('class:src/driver.ts#Driver', 'class', 'Driver', 'src/driver.ts', 'Driver'));
    g.upsertNode(node('method:src/driver.ts#Driver.#acquire', 'method', '#acquire', 'src/driver.ts', 'Driver.#acquire'));
    g.upsertNode(node('method:src/pool.ts#Pool.acquire', 'method', 'acquire', 'src/pool.ts', 'Pool.acquire'));
    assert.equal(nearNames(g, 'Driver.#acqiure', 3)[0], 'method:src/driver.ts#Driver.#acquire');
    assert.equal(nearNames(g, 'src/driver.ts#Driver.#acqiure', 3)[0], 'method:src/driver.ts#Driver.#acquire');
  });
});

describe('didYouMeanPaced (the did-you-mean scan a request handler runs)', () => {
  it('gives the event loop a turn every few thousand nodes and answers as the one-piece scan does', async () => {
    const { CodeGraph } = await import('../../../../plugins/graph/engine/graph.ts');
    const { didYouMeanPaced, nearNames } = await import('../../../../plugins/graph/engine/near-names.ts');
    const g = new CodeGraph();
    for (let i = 0; i < 20_000; i++) {
      const name = `handler${i}`;
      g.upsertNode({ id: `function:src/h${i % 50}.ts#${name}`, kind: 'function', label: name, path: `src/h${i % 50}.ts`, startLine: 1, endLine: 2, language: 'typescript', qualifiedName: name } as never);
    }
    let paces = 0;
    const got = await didYouMeanPaced(g, 'hanlder123', [], 3, async () => {
      paces++;
      await new Promise((r) => setImmediate(r));
    });
    assert.ok(paces >= 4, `a pace between steps of the scan: ${paces}`);
    assert.deepEqual(got, nearNames(g, 'hanlder123', 3));
    assert.equal(got[0], 'function:src/h23.ts#handler123');
  });
});
