import { strict as assert } from 'node:assert';
import { dominantModeSteps, symmetricEigen, type Mode, type SymmetricGraph } from '../../../plugins/resonate/spectrum.ts';

/** Two 10-cliques joined by one edge: M's top eigenvalue is 1, the next (0.98) splits the cliques. */
function twoClusters(): SymmetricGraph {
  const n = 20;
  const neighbours: [number, number][][] = Array.from({ length: n }, () => []);
  for (const off of [0, 10]) for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) if (i !== j) neighbours[off + i].push([off + j, 1]);
  neighbours[0].push([10, 1]);
  neighbours[10].push([0, 1]);
  return { n, neighbours };
}

function run(g: SymmetricGraph, m: number): { modes: Mode[]; steps: number } {
  const steps = dominantModeSteps(g, m);
  let count = 0;
  for (let r = steps.next(); ; r = steps.next(), count++) if (r.done) return { modes: r.value, steps: count };
}

/** max |M·v − λ·v| over the entries, M = D^-1/2·A·D^-1/2. */
function residual(g: SymmetricGraph, mode: Mode): number {
  const deg = g.neighbours.map((l) => l.reduce((s, [, w]) => s + w, 0));
  let worst = 0;
  for (let i = 0; i < g.n; i++) {
    let y = 0;
    for (const [j, w] of g.neighbours[i]) y += (w / Math.sqrt(deg[i] * deg[j])) * mode.vector[j];
    worst = Math.max(worst, Math.abs(y - mode.eigenvalue * mode.vector[i]));
  }
  return worst;
}

// Found checking resonate's modes against their definition: without a Rayleigh–Ritz step the two
// modes of two loosely joined clusters stayed mixed after all 300 steps (eigenvalue 0.996 for 1,
// the main body's loadings 0.10 in one cluster and 0.30 in the other), and the convergence test
// compared a vector with its own half-step, so no call ever stopped early.
describe('dominantModeSteps (the modes resonate reports)', () => {
  it('separates two modes of close eigenvalues: the main body spans both clusters, the next splits them', () => {
    const g = twoClusters();
    const { modes } = run(g, 6);
    assert.ok(Math.abs(modes[0].eigenvalue - 1) < 1e-9, `top eigenvalue ${modes[0].eigenvalue}`);
    for (const mode of modes) assert.ok(residual(g, mode) < 1e-6, `mode λ=${mode.eigenvalue} residual ${residual(g, mode)}`);
    const body = modes[0].vector;
    assert.ok([...body].every((x) => x > 0), 'the main body loads every node the same way');
    assert.ok(Math.abs(body[1] - body[11]) < 1e-6, 'the two clusters weigh the same in the main body');
    const split = modes[1].vector;
    assert.ok(split[1] * split[11] < 0 && Math.abs(split[1] + split[11]) < 1e-6, 'mode 2 puts the clusters on opposite poles');
  });

  it('stops once every wanted mode\'s residual is under the tolerance, well before the step limit', () => {
    const { steps } = run(twoClusters(), 2);
    assert.ok(steps < 100, `${steps} steps`);
  });

  it('symmetricEigen orders the eigenpairs of a small matrix by eigenvalue, largest first', () => {
    const { values, vectors: q } = symmetricEigen([
      [2, 1, 0],
      [1, 2, 0],
      [0, 0, 5],
    ]);
    const s = Math.SQRT1_2;
    assert.deepEqual(values.map((x) => Math.round(x * 1e9) / 1e9), [5, 3, 1]);
    assert.deepEqual(q[0].map(Math.abs), [0, 0, 1]);
    assert.ok(Math.abs(Math.abs(q[1][0]) - s) < 1e-12 && Math.abs(q[1][0] - q[1][1]) < 1e-12, `eigenvalue 3: (1, 1)/√2, got ${q[1]}`);
    assert.ok(Math.abs(q[2][0] + q[2][1]) < 1e-12, `eigenvalue 1: (1, −1)/√2, got ${q[2]}`);
  });
});
