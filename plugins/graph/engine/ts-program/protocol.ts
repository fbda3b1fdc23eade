/**
 * The messages between the engine and the checker worker, and the shape of what the checker pass
 * yields per file. Both ends of an edge are positions (path, line, name), not graph ids: the engine
 * maps them onto its nodes, so the worker needs no knowledge of the graph's naming conventions.
 */

/** Bumped when the checker's output for the same inputs changes (stored results are then re-checked). */
export const CHECKER_VERSION = 10;

/** How an edge found by the checker relates its ends. */
export type PreciseRelation = 'calls' | 'references' | 'dispatches';

/**
 * A member call the checker found no declaration for (`app.listen()` with `app` built by a mixin, an
 * `any` receiver): `{ line, toName: 'listen', relation: 'unresolved', toPath: '', toLine: 0 }`. The
 * graph keeps the name-resolved call there instead of dropping it. Never an edge itself.
 */
export const UNRESOLVED = 'unresolved' as const;

/**
 * One edge from a checked file: `line` is where the call or reference is (the engine takes the
 * innermost symbol spanning it as the source), `toPath`/`toLine`/`toName` the declaration it resolved to
 * (`toLine` is the line of the declaration's name).
 */
export interface PreciseEdge {
  line: number;
  toPath: string;
  toLine: number;
  toName: string;
  relation: PreciseRelation | typeof UNRESOLVED;
}

/** The checker's answer for one file. */
export interface PreciseFile {
  path: string;
  /** sha1 of the text the checker read (the engine drops results for text it no longer has). */
  hash: string;
  edges: PreciseEdge[];
}

/** A TS/JS workspace file the worker may be asked about. */
export interface CheckInputFile {
  path: string;
  hash: string;
}

/** Engine → worker. */
export type CheckRequest = {
  type: 'check';
  id: number;
  /** The engine's client (one worker serves every engine of a process; each has its own programs). */
  client: number;
  root: string;
  /** Every TS/JS file of the workspace (their hashes version the language services' scripts). */
  files: CheckInputFile[];
  /** Files whose edges are wanted. */
  check: string[];
};

/**
 * Engine → worker, when an ingest starts: build the programs from the files on disk while the engine
 * parses, so the check request that follows finds them parsed and bound (same content, same version).
 */
export type WarmRequest = { type: 'warm'; id: number; client: number; root: string };

/** Engine → worker, when an engine stops: its programs are dropped (kept only to lend their lib files to the next). */
export type ReleaseRequest = { type: 'release'; id: number; client: number };

/** Worker → engine. */
export type CheckResponse =
  | { type: 'result'; id: number; files: PreciseFile[]; failed: string[]; fingerprint: string; stats: CheckStats }
  | { type: 'warmed'; id: number; elapsedMs: number }
  | { type: 'released'; id: number }
  | { type: 'error'; id: number; message: string }
  /** Sent while a check runs (not an answer: the request keeps waiting for its result). */
  | { type: 'progress'; id: number; progress: CheckProgress };

/** How far a check is: its programs built (parse and bind), then its files' edges collected. */
export interface CheckProgress {
  phase: 'programs' | 'files';
  done: number;
  total: number;
}

/** What one pass cost. */
export interface CheckStats {
  programs: number;
  /** Engines whose programs the worker holds (one worker serves every engine of a process). */
  clients: number;
  /** Lib files (lib.dom.d.ts, the ES libs) this engine's warm-up and pass parsed: 0 when another engine's programs held them. */
  libsParsed: number;
  elapsedMs: number;
  /** Of `elapsedMs`, building the programs (parse, bind); the rest is the checker's queries. */
  buildMs: number;
  /** Time the worker spent before this pass warming the programs (0 when it did not). */
  warmMs: number;
  /** The worker's start-up (thread start to compiler and modules loaded), reported by its first pass; 0 after (and for a client that found the worker running). */
  startupMs: number;
  /** How the compiler was loaded (see compiler-cache.ts). */
  compiler: 'cached' | 'compiled' | 'rejected' | 'require';
  /** The worker thread's own CPU milliseconds for the same phases, where the platform tells (Linux). */
  cpu?: { startup: number; warm: number; pass: number };
  /** Worker resident set and V8 heap after the pass, MiB. */
  rssMb: number;
  heapMb: number;
}

/** What the engine hands the worker when it starts it (`workerData`). */
export interface CheckerWorkerData {
  /** `performance.now()` at the spawn (threads share the time origin): the start-up is measured from it. */
  spawnedAt: number;
  /** Folder for the compiler's code cache (see compiler-cache.ts), or null for none. */
  cacheDir: string | null;
}
