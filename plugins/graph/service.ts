/**
 * The `graph` service other plugins consume (declare `requires: ['graph']`): the workspace's code
 * graph engine, plus the few host-facing conveniences every graph verb needs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ErrorCodes, M1ndError, type SessionStore } from '../../core/index.ts';
import { BoostBook } from './boosts.ts';
import { EngineError } from './engine/errors.ts';
import type { CodeGraphEngine, FreshnessReport } from './engine/engine.ts';
import type { GraphNode } from './engine/graph.ts';
import type { IngestSummary } from './engine/ingest.ts';
import type { ParseExtensionSpec } from './engine/parse-extensions.ts';
import { FederationViews } from './federated-service.ts';
import { LearnedWeights } from './learned.ts';

/**
 * The version of the GraphService interface and the API exported beside it (`m1nd/graph`). Raised
 * on any change that can break a plugin written against it (a member removed or changed); additions
 * keep it. A plugin that depends on it checks `graph.apiVersion` in `apply`.
 */
export const GRAPH_API_VERSION = 1;

export interface GraphService {
  /** GRAPH_API_VERSION of the host serving this graph. */
  readonly apiVersion: number;
  /** The engine: `engine.graph` (the CodeGraph: nodes, edges), lookups (`findNodes`, `getNode`, `symbolAt`), search, the store. */
  readonly engine: CodeGraphEngine;
  /** True when the server may write the store (not read-only). */
  readonly writable: boolean;
  /** Brings the graph up to date before a query (other processes' commits, watched edits). */
  fresh(): Promise<FreshnessReport>;
  /** Fresh, and non-empty: throws GRAPH_EMPTY with the ingest call to make otherwise. */
  requireGraph(): Promise<CodeGraphEngine>;
  /** Runs engine code, turning engine errors into host errors (same code and hint). */
  run<T>(fn: () => T): T;
  /**
   * The node an argument names: an id, a path (`path:line` too), an exact name or qualified name —
   * never a loose text match, which would pin an unrelated node. GRAPH_NODE_NOT_FOUND with
   * did-you-mean otherwise.
   */
  node(text: string): GraphNode;
  /** Per-agent activation boosts (warmup, trail_resume) that ranking verbs apply for that agent. */
  readonly boosts: BoostBook;
  /** Ranking weights learned from `learn` feedback (all agents), persisted in the store; ranking verbs apply them. */
  readonly learned: LearnedWeights;
  /** Files of the loaded graph whose parse had errors: counts and the `limit` (default 10) worst, snake_case for verb output. */
  parseErrorFiles(limit?: number): ParseErrorsView;
  /** sha1 hex of a workspace file's bytes (the hash the store records); null when it is no file. Path-guarded. */
  contentHash(path: string): string | null;
  /** Re-ingests only these workspace files now (deleted ones leave the graph); writers call it after a write. */
  reingestPaths(paths: readonly string[], signal?: AbortSignal): Promise<IngestSummary>;
  /** The symbols a file contains (nested ones too, file node excluded), in line order. */
  fileSymbols(path: string): GraphNode[];
  /** The symbol nodes (id, kind, lines) `text` would give file `path`, parsed without touching the graph; null for a language the graph does not parse. */
  previewSymbols(path: string, text: string): Promise<{ id: string; kind: string; startLine: number; endLine: number }[] | null>;
  /**
   * Registers work on each file's syntax tree inside the ingest's parse (engine/parse-extensions.ts):
   * a module URL whose default export gets (tree, source, text, language, path) and returns JSON;
   * read back with `engine.extensionData(key, paths?)`, changes with `engine.onExtensionData`.
   */
  registerParseExtension(spec: ParseExtensionSpec): void;
  /** The federation this service can serve (federated-view.ts) and each agent's choice of view: `federation.serviceFor(agentId)` is the graph that agent's read verbs query. */
  readonly federation: FederationViews;
}

/** Extracted symbol kinds that become graph nodes (as ingest builds them). */
const NODE_SYMBOL_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'function', 'method', 'type', 'section']);

/** The parse-error report as verbs show it. */
export interface ParseErrorsView {
  files: number;
  total: number;
  worst: { path: string; errors: number; first_line: number }[];
  truncated: boolean;
}

/** Runs engine code, turning engine errors into host errors with the same code and hint. */
export function engineCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw asHostError(error);
  }
}

/** An engine error as an M1ndError (same code and hint); other errors pass through. */
export function asHostError(error: unknown): unknown {
  if (error instanceof EngineError) {
    return new M1ndError(error.code as never, error.message, { hint: error.hint });
  }
  return error;
}

/** Creates the service over an opened engine. */
export function createGraphService(engine: CodeGraphEngine, writable: boolean, session: SessionStore): GraphService {
  let federation: FederationViews | undefined;
  const service: GraphService = {
    get federation() {
      return (federation ??= new FederationViews(service, engine, session));
    },
    apiVersion: GRAPH_API_VERSION,
    engine,
    registerParseExtension: (spec) => engine.registerParseExtension(spec),
    writable,
    boosts: new BoostBook(session),
    learned: new LearnedWeights(engine, writable),
    run: engineCall,
    parseErrorFiles(limit) {
      const r = engine.parseErrorFiles(limit);
      return { files: r.files, total: r.total, worst: r.worst.map((f) => ({ path: f.path, errors: f.errors, first_line: f.firstLine })), truncated: r.truncated };
    },
    contentHash(path) {
      const p = engineCall(() => engine.resolvePath(path));
      try {
        return createHash('sha1').update(readFileSync(p.absolute)).digest('hex');
      } catch {
        return null;
      }
    },
    async reingestPaths(paths, signal) {
      try {
        return await engine.ingest({ paths, signal });
      } catch (error) {
        throw asHostError(error);
      }
    },
    fileSymbols(path) {
      return fileSymbolsOf(engine.graph, `file:${path}`, path);
    },
    async previewSymbols(path, text) {
      const extraction = await engine.extractText(path, text);
      if (!extraction) return null;
      // Same ids as ingest: a repeated qualified name gets a stable ~N suffix.
      const seen = new Map<string, number>();
      const out: { id: string; kind: string; startLine: number; endLine: number }[] = [];
      for (const sym of extraction.symbols) {
        if (!NODE_SYMBOL_KINDS.has(sym.kind)) continue;
        const n = (seen.get(sym.qualifiedName) ?? 0) + 1;
        seen.set(sym.qualifiedName, n);
        out.push({ id: `${sym.kind}:${path}#${n === 1 ? sym.qualifiedName : `${sym.qualifiedName}~${n}`}`, kind: sym.kind, startLine: sym.startLine, endLine: sym.endLine });
      }
      return out;
    },
    node(text) {
      const match = engine.findNodes(text, { limit: 1 })[0];
      return match && match.via !== 'seek' ? match.node : engineCall(() => engine.requireNode(text));
    },
    async fresh() {
      // A read-only server on a never-ingested workspace has no store, and must not create one.
      if (!engine.storeExists()) return { generation: 0, reloaded: false, reingested: [] };
      try {
        return await engine.ensureFresh();
      } catch (error) {
        throw asHostError(error);
      }
    },
    async requireGraph() {
      await service.fresh();
      if (engine.graph.nodeCount === 0) {
        throw new M1ndError(ErrorCodes.GRAPH_EMPTY, `no graph is loaded for ${engine.root}`, {
          hint: writable
            ? `call ingest({"agent_id":"…","path":"${engine.root}"}) first`
            : 'this server is read-only: ingest the workspace with a writable m1nd (without --read-only), then retry',
        });
      }
      return engine;
    },
  };
  return service;
}

/** The symbols a file node contains (transitively, same path), in source order. */
export function fileSymbolsOf(g: CodeGraphEngine['graph'], fileId: string, path: string): GraphNode[] {
  const out: GraphNode[] = [];
  const seen = new Set<string>();
  const walk = (id: string) => {
    for (const e of g.outgoing(id, 'contains')) {
      const n = g.get(e.target);
      if (!n || n.path !== path || seen.has(n.id)) continue;
      seen.add(n.id);
      out.push(n);
      walk(n.id);
    }
  };
  walk(fileId);
  return out.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine || a.id.localeCompare(b.id));
}
