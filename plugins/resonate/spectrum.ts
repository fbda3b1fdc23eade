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

/** Steps between two Rayleigh–Ritz steps (each costs about three plain ones). */
const RITZ_EVERY = 4;

/**
 * The `m` modes with the largest eigenvalues, largest first, as steps: one iteration per step.
 * Iterates (M + I) / 2, whose spectrum is M's shifted into [0, 1]: the largest eigenvalues of M then
 * dominate, and negative ones (bipartite structure) cannot take over. Every few steps a
 * Rayleigh–Ritz step turns the subspace (two guard vectors beyond the `m` wanted) into its Ritz
 * vectors: without it, two modes of close eigenvalues (two loosely joined clusters: 1 and 0.98)
 * stayed mixed after all the steps, the main body's loadings half a split. Done when every wanted
 * Ritz pair's residual |M·u − λ·u| is under `tolerance` in each entry (a test that a rotation inside
 * an eigenspace of equal eigenvalues does not upset).
 */
export function* dominantModeSteps(g: SymmetricGraph, m: number, iterations = 300, tolerance = 1e-7): Generator<void, Mode[]> {
  const n = g.n;
  m = Math.min(m, n);
  if (m === 0) return [];
  const p = Math.min(n, m + 2);
  const matrix = normalised(g);
  const rand = mulberry32(0x5eed);
  const vs = Array.from({ length: p }, () => Float64Array.from({ length: n }, () => rand() - 0.5));
  orthonormalise(vs, rand);
  const ys = vs.map(() => new Float64Array(n));
  const ritz = vs.map(() => new Float64Array(n));
  for (let it = 0; ; it++) {
    shiftedProducts(matrix, vs, ys);
    const last = it + 1 >= iterations;
    if (it % RITZ_EVERY !== RITZ_EVERY - 1 && !last) {
      // A plain power step: the subspace converges; the Rayleigh–Ritz steps sort out the vectors in it.
      for (let k = 0; k < p; k++) vs[k].set(ys[k]);
    } else if (rayleighRitz(vs, ys, ritz, m) < tolerance / 2 || last) {
      break; // the shifted operator's residual is half M's
    }
    orthonormalise(vs, rand);
    yield;
  }
  const tmp = new Float64Array(n);
  const modes = ritz.slice(0, m).map((v) => {
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

/** ys[k] = (M·vs[k] + vs[k]) / 2. */
function shiftedProducts(matrix: NormalisedAdjacency, vs: readonly Float64Array[], ys: readonly Float64Array[]): void {
  for (let k = 0; k < vs.length; k++) {
    const v = vs[k];
    const y = ys[k];
    multiply(matrix, v, y);
    for (let i = 0; i < y.length; i++) y[i] = (y[i] + v[i]) / 2;
  }
}

/**
 * With H = Vᵀ·Y = Q·Λ·Qᵀ: writes the Ritz vectors V·Q into `ritz` and their images Y·Q (the next
 * power step) into `vs`; returns the largest residual entry |Y·q − λ·V·q| of the first `m`.
 */
function rayleighRitz(vs: Float64Array[], ys: readonly Float64Array[], ritz: readonly Float64Array[], m: number): number {
  const p = vs.length;
  const n = vs[0].length;
  const h = Array.from({ length: p }, (_, a) => Array.from({ length: p }, (_, b) => dot(vs[a], ys[b])));
  const { values, vectors } = symmetricEigen(h);
  for (let j = 0; j < p; j++) {
    const u = ritz[j].fill(0);
    for (let k = 0; k < p; k++) {
      const c = vectors[j][k];
      const v = vs[k];
      for (let i = 0; i < n; i++) u[i] += c * v[i];
    }
  }
  let residual = 0;
  for (let j = 0; j < p; j++) {
    const w = vs[j].fill(0); // V is spent: it becomes Y·Q
    for (let k = 0; k < p; k++) {
      const c = vectors[j][k];
      const y = ys[k];
      for (let i = 0; i < n; i++) w[i] += c * y[i];
    }
    if (j < m) {
      const u = ritz[j];
      const lambda = values[j];
      for (let i = 0; i < n; i++) {
        const r = Math.abs(w[i] - lambda * u[i]);
        if (r > residual) residual = r;
      }
    }
  }
  return residual;
}

/**
 * The eigenvalues and eigenvectors of a small symmetric matrix (cyclic Jacobi rotations), largest
 * eigenvalue first; `vectors[j]` is the eigenvector of `values[j]`.
 */
export function symmetricEigen(matrix: readonly (readonly number[])[]): { values: number[]; vectors: number[][] } {
  const m = matrix.length;
  // Symmetrise (H = Vᵀ·M·V is symmetric up to rounding).
  const a = matrix.map((row, i) => row.map((x, j) => (x + matrix[j][i]) / 2));
  const v: number[][] = Array.from({ length: m }, (_, i) => Array.from({ length: m }, (_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 64; sweep++) {
    let off = 0;
    for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) off += a[i][j] * a[i][j];
    if (off < 1e-30) break;
    for (let p = 0; p < m; p++) {
      for (let r = p + 1; r < m; r++) {
        if (Math.abs(a[p][r]) < 1e-300) continue;
        const theta = (a[r][r] - a[p][p]) / (2 * a[p][r]);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < m; k++) {
          const akp = a[k][p];
          const akr = a[k][r];
          a[k][p] = c * akp - s * akr;
          a[k][r] = s * akp + c * akr;
        }
        for (let k = 0; k < m; k++) {
          const apk = a[p][k];
          const ark = a[r][k];
          a[p][k] = c * apk - s * ark;
          a[r][k] = s * apk + c * ark;
        }
        for (let k = 0; k < m; k++) {
          const vkp = v[k][p];
          const vkr = v[k][r];
          v[k][p] = c * vkp - s * vkr;
          v[k][r] = s * vkp + c * vkr;
        }
      }
    }
  }
  const order = Array.from({ length: m }, (_, i) => i).sort((x, y) => a[y][y] - a[x][x]);
  return { values: order.map((j) => a[j][j]), vectors: order.map((j) => v.map((row) => row[j])) };
}
