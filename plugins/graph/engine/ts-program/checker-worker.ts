/**
 * The checker worker: holds the language services of each client (an engine) between passes and
 * answers `check` requests with each file's precise edges. Runs in a worker thread so the engine's
 * event loop never waits on the type checker. A `warm` request (sent when an ingest starts) builds
 * the programs from disk ahead of the check, on another core than the engine's parsing. One worker
 * serves every engine of a process: the lib files are parsed once for all of them (see
 * `libSharingRegistry`), and a released client's programs are kept only until another client's
 * programs hold those lib files.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type ts from 'typescript';
import { candidateNames } from './candidate-names.ts';
import { collectEdges } from './collect-edges.ts';
import { compilerLoad, saveCompilerCache } from './compiler-cache.ts';
import { libSharingRegistry, SharedLibs } from './document-registry.ts';
import { Implementations } from './implementations.ts';
import { programFingerprint } from './fingerprint.ts';
import { ProjectSet } from './projects.ts';
import { type CheckerWorkerData, type CheckProgress, type CheckRequest, type CheckResponse, type PreciseFile, type ReleaseRequest, type WarmRequest } from './protocol.ts';
import { threadCpuMs } from './thread-cpu.ts';

/**
 * The compiler and this module's imports are loaded before it runs (see checker-client.ts): the
 * start-up, from the spawn (threads share the time origin); all this thread's CPU so far is its.
 * Reported by the first pass of the worker, whichever client asks it.
 */
let startup = { ms: Math.round(performance.now() - (workerData as CheckerWorkerData).spawnedAt), cpu: threadCpuMs() };

/** The lib files' parsed documents, shared by every client's services. */
const libs = new SharedLibs();

/** One client's programs, and the time (and thread CPU) it spent warming since its last check. */
interface ClientState {
  projects: ProjectSet;
  warmMs: number;
  warmCpu: number;
  /** Lib files its warm-ups and passes parsed since its last pass (0 when another client's programs held them). */
  libsParsed: number;
}

const clients = new Map<number, ClientState>();
/** Released clients' programs, disposed once another client's programs are built (they hold the lib files until then). */
let released: ProjectSet[] = [];

/** Thread CPU elapsed since `from` (0 when unknown). */
const cpuSince = (from: number | null): number => {
  const now = threadCpuMs();
  return now === null || from === null ? 0 : now - from;
};

/** The client's state for `root` (a new one when it had none, or held another root). */
function stateOf(client: number, root: string): ClientState {
  let state = clients.get(client);
  if (!state || state.projects.root !== root) {
    if (state) released.push(state.projects);
    state = { projects: new ProjectSet(root, libSharingRegistry(libs)), warmMs: 0, warmCpu: 0, libsParsed: 0 };
    clients.set(client, state);
  }
  return state;
}

/** Disposes released programs once built ones hold what they shared. */
function disposeReleased(): void {
  for (const set of released) set.dispose();
  released = [];
}

function warm(req: WarmRequest): CheckResponse {
  const t0 = performance.now();
  const c0 = threadCpuMs();
  const known = clients.get(req.client);
  const state = stateOf(req.client, req.root);
  // Programs already held for this root are kept current by the checks themselves.
  if (state !== known) {
    const parsed = libs.parsed;
    state.projects.warm(programFingerprint(req.root));
    state.libsParsed += libs.parsed - parsed;
    disposeReleased();
  }
  const elapsedMs = Math.round(performance.now() - t0);
  state.warmMs += elapsedMs;
  state.warmCpu += cpuSince(c0);
  return { type: 'warmed', id: req.id, elapsedMs };
}

function release(req: ReleaseRequest): void {
  const state = clients.get(req.client);
  if (!state) return;
  clients.delete(req.client);
  // Another client's programs hold the lib files already: nothing to keep.
  if (clients.size > 0) state.projects.dispose();
  else released.push(state.projects);
}

/** Progress messages for one check: the first at once, then at most one every PROGRESS_MS. */
const PROGRESS_MS = 250;
function progressReporter(id: number): (progress: CheckProgress) => void {
  let last = -Infinity;
  return (progress) => {
    const now = performance.now();
    if (now - last < PROGRESS_MS) return;
    last = now;
    parentPort?.postMessage({ type: 'progress', id, progress } satisfies CheckResponse);
  };
}

function check(req: CheckRequest): CheckResponse {
  const t0 = performance.now();
  const c0 = threadCpuMs();
  const fingerprint = programFingerprint(req.root);
  const state = stateOf(req.client, req.root);
  const set = state.projects;
  const libsBefore = libs.parsed;
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
  const report = progressReporter(req.id);
  for (const service of byService.keys()) {
    report({ phase: 'programs', done: programs.size, total: byService.size });
    programs.set(service, service.getProgram());
  }
  set.releaseRetired();
  disposeReleased();
  state.libsParsed += libs.parsed - libsBefore;
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
      report({ phase: 'files', done: files.length + failed.length, total: req.check.length });
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
    clients: clients.size,
    libsParsed: state.libsParsed,
    elapsedMs: Math.round(performance.now() - t0),
    buildMs: Math.round(buildMs),
    warmMs: state.warmMs,
    startupMs: startup.ms,
    compiler: compilerLoad(),
    ...(c0 === null ? {} : { cpu: { startup: startup.cpu ?? 0, warm: state.warmCpu, pass: cpuSince(c0) } }),
    rssMb: Math.round(mem.rss / 2 ** 20),
    heapMb: Math.round(mem.heapUsed / 2 ** 20),
  };
  state.warmMs = 0;
  state.warmCpu = 0;
  state.libsParsed = 0;
  startup = { ms: 0, cpu: 0 };
  return { type: 'result', id: req.id, files, failed, fingerprint, stats };
}

parentPort?.on('message', (req: CheckRequest | WarmRequest | ReleaseRequest) => {
  if (req.type === 'release') {
    release(req);
    return;
  }
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
