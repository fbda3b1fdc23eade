/**
 * The dominant structural modes of a small weighted graph: the top eigenvectors of its normalised
 * adjacency D^-1/2 A D^-1/2, found by subspace (block power) iteration with re-orthonormalisation.
 * Deterministic: the start vectors come from a seeded generator. The matrix is held as CSR typed
 * arrays with the normalisation folded into its values, and the iteration is a step generator (one
 * step per iteration) so a caller can run it in slices that leave the event loop free.
 */

/** A symmetric weighted graph on nodes 0..n-1, as adjacency lists. */
export interface SymmetricGraph {
  n: number;
  /** neighbours[i] = [[j, weight], …], each undirected edge listed from both ends. */
  neighbours: [number, number][][];
}

/** One mode: its eigenvalue (in [-1, 1]) and unit eigenvector. */
export interface Mode {
  eigenvalue: number;
  vector: Float64Array;
}

/** The normalised adjacency M = D^-1/2 A D^-1/2 in compressed sparse rows. */
interface NormalisedAdjacency {
  n: number;
  offsets: Int32Array;
  cols: Int32Array;
  values: Float64Array;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normalised(g: SymmetricGraph): NormalisedAdjacency {
  const n = g.n;
  const inv = new Float64Array(n);
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let d = 0;
    for (const [, w] of g.neighbours[i]) d += w;
    inv[i] = d > 0 ? 1 / Math.sqrt(d) : 0;
    offsets[i + 1] = offsets[i] + g.neighbours[i].length;
  }
  const cols = new Int32Array(offsets[n]);
  const values = new Float64Array(offsets[n]);
  for (let i = 0; i < n; i++) {
    let k = offsets[i];
    for (const [j, w] of g.neighbours[i]) {
      cols[k] = j;
      values[k++] = inv[i] * w * inv[j];
    }
  }
  return { n, offsets, cols, values };
}

/** y = M x. */
function multiply(m: NormalisedAdjacency, x: Float64Array, y: Float64Array): void {
  const { n, offsets, cols, values } = m;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = offsets[i]; k < offsets[i + 1]; k++) s += values[k] * x[cols[k]];
    y[i] = s;
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Gram–Schmidt in place; a vector that collapses is replaced by fresh noise and re-orthogonalised. */
function orthonormalise(vs: Float64Array[], rand: () => number): void {
  for (let k = 0; k < vs.length; k++) {
    for (let attempt = 0; attempt < 3; attempt++) {
      for (let j = 0; j < k; j++) {
        const p = dot(vs[k], vs[j]);
        for (let i = 0; i < vs[k].length; i++) vs[k][i] -= p * vs[j][i];
      }
      const norm = Math.sqrt(dot(vs[k], vs[k]));
      if (norm > 1e-10) {
        for (let i = 0; i < vs[k].length; i++) vs[k][i] /= norm;
        break;
      }
      for (let i = 0; i < vs[k].length; i++) vs[k][i] = rand() - 0.5;
    }
  }
}

/** The `m` modes with the largest eigenvalues, largest first, as steps: one iteration per step. */
export function* dominantModeSteps(g: SymmetricGraph, m: number, iterations = 300): Generator<void, Mode[]> {
  const n = g.n;
  m = Math.min(m, n);
  if (m === 0) return [];
  const matrix = normalised(g);
  const rand = mulberry32(0x5eed);
  const vs = Array.from({ length: m }, () => Float64Array.from({ length: n }, () => rand() - 0.5));
  orthonormalise(vs, rand);
  const tmp = new Float64Array(n);
  // Iterate (M + I) / 2, whose spectrum is M's shifted into [0, 1]: the largest eigenvalues of M
  // then dominate, and negative ones (bipartite structure) cannot take over.
  for (let it = 0; it < iterations; it++) {
    let moved = 0;
    for (const v of vs) {
      multiply(matrix, v, tmp);
      for (let i = 0; i < n; i++) {
        const next = (tmp[i] + v[i]) / 2;
        moved = Math.max(moved, Math.abs(next - v[i]));
        v[i] = next;
      }
    }
    orthonormalise(vs, rand);
    if (moved < 1e-9) break;
    yield;
  }
  const modes = vs.map((v) => {
    multiply(matrix, v, tmp);
    const eigenvalue = dot(v, tmp);
    // Fix the sign so the largest loading is positive (stable output; the eigenvalue does not depend on it).
    let big = 0;
    for (let i = 0; i < n; i++) if (Math.abs(v[i]) > Math.abs(big)) big = v[i];
    if (big < 0) for (let i = 0; i < n; i++) v[i] = -v[i];
    return { eigenvalue, vector: v };
  });
  return modes.sort((a, b) => b.eigenvalue - a.eigenvalue);
}
