/**
 * The checker worker: holds the workspace's language services between passes and answers `check`
 * requests with each file's precise edges. Runs in a worker thread so the engine's event loop never
 * waits on the type checker.
 */
import { parentPort } from 'node:worker_threads';
import type ts from 'typescript';
import { candidateNames } from './candidate-names.ts';
import { collectEdges } from './collect-edges.ts';
import { Implementations } from './implementations.ts';
import { programFingerprint } from './fingerprint.ts';
import { ProjectSet } from './projects.ts';
import { type CheckRequest, type CheckResponse, type PreciseFile } from './protocol.ts';

let projects: ProjectSet | null = null;

function check(req: CheckRequest): CheckResponse {
  const t0 = performance.now();
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
  const files: PreciseFile[] = [];
  for (const [service, paths] of byService) {
    const program = service.getProgram();
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
  return {
    type: 'result',
    id: req.id,
    files,
    failed,
    fingerprint,
    stats: { programs: set.size, elapsedMs: Math.round(performance.now() - t0), rssMb: Math.round(mem.rss / 2 ** 20), heapMb: Math.round(mem.heapUsed / 2 ** 20) },
  };
}

parentPort?.on('message', (req: CheckRequest) => {
  let res: CheckResponse;
  try {
    res = check(req);
  } catch (err) {
    res = { type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(res);
});
