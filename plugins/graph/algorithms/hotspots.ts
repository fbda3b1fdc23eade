/**
 * Risk per file (the `report` hotspots): files many other files depend on, central in the graph,
 * changed often, and without tests are where a change hurts most.
 * risk = 0.35 × centrality + 0.35 × dependents + 0.2 × churn + 0.1 × untested, each in [0,1]:
 * centrality = the file's best node PageRank (log-compressed), dependents = distinct other files
 * with a dependency edge into it (log-scaled to the maximum), churn = log-scaled commit count.
 */
import { RELATION_CODE, type CodeGraph } from '../engine/graph.ts';
import { runSteps, runStepsPaced } from '../engine/steps.ts';
import { ensureFinal, fileIndexOf, warmFileIndex } from './graph-facts.ts';

export interface FileRisk {
  file: number;
  risk: number;
  centrality: number;
  dependents: number;
  commits: number;
  tested: boolean;
}

const DEP = new Uint8Array(16);
for (const r of ['imports', 'calls', 'references', 'inherits', 'implements'] as const) DEP[RELATION_CODE[r]] = 1;
const cache = new WeakMap<CodeGraph, { version: number; risks: FileRisk[] }>();

/** Every file's risk, riskiest first; cached per graph version. `pagerank` is max-normalised by node. */
export function fileRisks(g: CodeGraph, pagerank: Float64Array): FileRisk[] {
  ensureFinal(g);
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return hit.risks;
  const risks = runSteps(riskSteps(g, pagerank));
  cache.set(g, { version: g.version, risks });
  return risks;
}

/**
 * `fileRisks` made ahead with a `pace()` every 4,096 nodes or edges (in one piece: 42 ms on the
 * stdlib's graph in a first `report`); a later `fileRisks` of the same version finds it.
 */
export async function warmFileRisks(g: CodeGraph, pagerank: Float64Array, pace: () => Promise<void>): Promise<void> {
  ensureFinal(g);
  const hit = cache.get(g);
  if (hit && hit.version === g.version) return;
  const version = g.version;
  await warmFileIndex(g, pace);
  // A graph changed meanwhile: `fileRisks` makes them for the new version.
  const risks = await runStepsPaced(riskSteps(g, pagerank), pace, () => g.version !== version);
  if (risks && g.version === version) cache.set(g, { version, risks });
}

function* riskSteps(g: CodeGraph, pagerank: Float64Array): Generator<void, FileRisk[]> {
  const fileOf = fileIndexOf(g);
  const best = new Map<number, number>();
  // Index loops, not `nodes()` (an [index, node] pair per node).
  for (let i = 0; i < g.nodeCapacity; i++) {
    if ((i & 4095) === 4095) yield;
    const f = fileOf[i];
    if (f < 0) continue;
    const n = g.node(i);
    if (!n || n.kind === 'module') continue;
    best.set(f, Math.max(best.get(f) ?? 0, pagerank[i] ?? 0));
  }
  const dependents = new Map<number, Set<number>>();
  const tested = new Set<number>();
  const testFile = new Map<number, boolean>();
  for (let e = 0; e < g.edgeCapacity; e++) {
    if ((e & 4095) === 4095) yield;
    if (!g.edgeAlive[e]) continue;
    const r = g.edgeRelation[e];
    const fs = fileOf[g.edgeSource[e]];
    const ft = fileOf[g.edgeTarget[e]];
    if (ft < 0) continue;
    if (r === RELATION_CODE.tests) tested.add(ft);
    if (!DEP[r] || fs < 0 || fs === ft) continue;
    let isTest = testFile.get(fs);
    if (isTest === undefined) testFile.set(fs, (isTest = g.node(fs)?.isTest === true));
    if (isTest) tested.add(ft);
    let set = dependents.get(ft);
    if (!set) dependents.set(ft, (set = new Set()));
    set.add(fs);
  }
  let maxDep = 0;
  let maxCommits = 0;
  for (const s of dependents.values()) maxDep = Math.max(maxDep, s.size);
  for (const f of best.keys()) maxCommits = Math.max(maxCommits, g.node(f)?.commitCount ?? 0);
  yield;
  const risks: FileRisk[] = [];
  for (const [f, pr] of best) {
    const n = g.node(f)!;
    if (n.isTest) continue;
    const dep = dependents.get(f)?.size ?? 0;
    const commits = n.commitCount ?? 0;
    const centrality = Math.log1p(pr * 1000) / Math.log1p(1000);
    const depScore = maxDep > 0 ? Math.log1p(dep) / Math.log1p(maxDep) : 0;
    const churn = maxCommits > 0 ? Math.log1p(commits) / Math.log1p(maxCommits) : 0;
    const isTested = tested.has(f);
    risks.push({ file: f, risk: 0.35 * centrality + 0.35 * depScore + 0.2 * churn + (isTested ? 0 : 0.1), centrality, dependents: dep, commits, tested: isTested });
  }
  risks.sort((a, b) => b.risk - a.risk || a.file - b.file);
  return risks;
}
