/**
 * The checker worker: holds the workspace's language services between passes and answers `check`
 * requests with each file's precise edges. Runs in a worker thread so the engine's event loop never
 * waits on the type checker. A `warm` request (sent when an ingest starts) builds the programs from
 * disk ahead of the check, on another core than the engine's parsing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type ts from 'typescript';
import { candidateNames } from './candidate-names.ts';
import { collectEdges } from './collect-edges.ts';
import { compilerLoad, saveCompilerCache } from './compiler-cache.ts';
import { Implementations } from './implementations.ts';
import { programFingerprint } from './fingerprint.ts';
import { ProjectSet } from './projects.ts';
import { type CheckerWorkerData, type CheckRequest, type CheckResponse, type PreciseFile, type WarmRequest } from './protocol.ts';
import { threadCpuMs } from './thread-cpu.ts';

/**
 * The compiler and this module's imports are loaded before it runs (see checker-client.ts): the
 * start-up, from the spawn (threads share the time origin); all this thread's CPU so far is its.
 */
let startup = { ms: Math.round(performance.now() - (workerData as CheckerWorkerData).spawnedAt), cpu: threadCpuMs() };

let projects: ProjectSet | null = null;
/** Time (and thread CPU) spent warming since the last check. */
let warmMs = 0;
let warmCpu = 0;

/** Thread CPU elapsed since `from` (0 when unknown). */
const cpuSince = (from: number | null): number => {
  const now = threadCpuMs();
  return now === null || from === null ? 0 : now - from;
};

function warm(req: WarmRequest): CheckResponse {
  const t0 = performance.now();
  const c0 = threadCpuMs();
  // Programs already held for this root are kept current by the checks themselves.
  if (!projects || projects.root !== req.root) {
    projects = new ProjectSet(req.root);
    projects.warm(programFingerprint(req.root));
  }
  const elapsedMs = Math.round(performance.now() - t0);
  warmMs += elapsedMs;
  warmCpu += cpuSince(c0);
  return { type: 'warmed', id: req.id, elapsedMs };
}

function check(req: CheckRequest): CheckResponse {
  const t0 = performance.now();
  const c0 = threadCpuMs();
  const fingerprint = programFingerprint(req.root);
  if (!projects || projects.root !== req.root) projects = new ProjectSet(req.root);
  const set = projects;
  set.update(req.files, fingerprint);
  const byService = new Map<ts.LanguageService, string[]>();
  const failed: string[] = [];
  for (const path of req.check) {
    const service = set.serviceOf(path);
    if (!service) {
      failed.push(path);
      continue;
    }
    let list = byService.get(service);
    if (!list) byService.set(service, (list = []));
    list.push(path);
  }
  // Every program first: services a rebuild replaced are disposed only once the new ones hold the files.
  const programs = new Map<ts.LanguageService, ts.Program | undefined>();
  for (const service of byService.keys()) programs.set(service, service.getProgram());
  set.releaseRetired();
  const buildMs = performance.now() - t0;
  const files: PreciseFile[] = [];
  for (const [service, paths] of byService) {
    const program = programs.get(service);
    if (!program) {
      failed.push(...paths);
      continue;
    }
    const checker = program.getTypeChecker();
    let impls: Implementations | null = null;
    const workspaceFiles = program.getSourceFiles().filter((sf) => set.rel(sf.fileName) !== null);
    const ctx = {
      ...candidateNames(workspaceFiles),
      checker,
      rel: (fileName: string) => set.rel(fileName),
      implementations: () => (impls ??= new Implementations(checker, workspaceFiles)),
    };
    for (const path of paths) {
      const sf = program.getSourceFile(set.abs(path));
      const hash = set.hashRead(path);
      if (!sf || hash === undefined) {
        failed.push(path);
        continue;
      }
      try {
        files.push({ path, hash, edges: collectEdges(sf, ctx) });
      } catch {
        failed.push(path);
      }
    }
  }
  const mem = process.memoryUsage();
  const stats = {
    programs: set.size,
    elapsedMs: Math.round(performance.now() - t0),
    buildMs: Math.round(buildMs),
    warmMs,
    startupMs: startup.ms,
    compiler: compilerLoad(),
    ...(c0 === null ? {} : { cpu: { startup: startup.cpu ?? 0, warm: warmCpu, pass: cpuSince(c0) } }),
    rssMb: Math.round(mem.rss / 2 ** 20),
    heapMb: Math.round(mem.heapUsed / 2 ** 20),
  };
  warmMs = 0;
  warmCpu = 0;
  startup = { ms: 0, cpu: 0 };
  return { type: 'result', id: req.id, files, failed, fingerprint, stats };
}

parentPort?.on('message', (req: CheckRequest | WarmRequest) => {
  let res: CheckResponse;
  try {
    res = req.type === 'warm' ? warm(req) : check(req);
  } catch (err) {
    res = { type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) };
  }
  // After the first pass the compiler's code cache holds what the pass compiled. Written before the
  // answer, once per store (and compiler), so a process that exits after the pass still leaves it.
  if (res.type === 'result') saveCompilerCache();
  parentPort!.postMessage(res);
});
