/** ingest: builds or refreshes the workspace's code graph, with progress notifications. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { asHostError } from '../../graph/api.ts';
import { graphOf } from '../shared.ts';
import { ingestProgress } from './ingest-progress.ts';
import { preciseReport } from '../../graph/api.ts';

/** Ingest calls in flight per engine (running or queued behind one). */
const running = new WeakMap<object, number>();
/** How often a waiting ingest passes on the checker pass's progress. */
const TYPE_CHECK_POLL_MS = 250;

const ADAPTERS = ['code', 'json', 'memory', 'light', 'patent', 'article', 'bibtex', 'rfc', 'crossref', 'auto'] as const;

export const ingestVerb = defineVerb({
  name: 'ingest',
  description: 'Build or refresh the code graph of the workspace (files, symbols, imports, calls, docs, git history). Incremental re-parses changed files only.',
  input: Type.Object({
    agent_id: AgentId,
    path: Type.String({ description: 'Workspace root (or a path inside it)' }),
    incremental: Type.Boolean({ default: false, description: 'Re-parse only changed files' }),
    adapter: StringEnum(ADAPTERS, { default: 'code', description: 'Only code (or auto) is supported' }),
    mode: StringEnum(['replace', 'merge'] as const, { default: 'replace', description: 'replace: rebuild; merge: keep the graph, refresh changes' }),
    namespace: Type.Optional(Type.String({ description: 'Not used by the code adapter' })),
    include_dotfiles: Type.Boolean({ default: false }),
    dotfile_patterns: Type.Array(Type.String(), { default: [] }),
    project_root: Type.Optional(Type.String({ description: 'Must be this server’s workspace' })),
    wait_precise: Type.Boolean({ default: true, description: 'Wait for the TS/JS type-checker pass (precise calls); false returns at once, the pass continues in the background' }),
  }),
  output: Type.Object({
    type_checked: Type.Object({ last_pass: Type.Union([Type.Object({}), Type.Null()]), last_error: Type.Optional(Type.String()), files: Type.Number(), precise: Type.Number(), pending: Type.Number(), failed: Type.Number(), running: Type.Boolean() }),
    skipped_note: Type.Optional(Type.String()),
    files: Type.Object({ skipped: Type.Number(), scanned: Type.Number(), parsed: Type.Number(), reused: Type.Number(), unchanged: Type.Number(), removed: Type.Number() }),
    skippedByReason: Type.Object({ binary: Type.Optional(Type.Number()), gitignored: Type.Optional(Type.Number()), excluded: Type.Optional(Type.Number()), vendored: Type.Optional(Type.Number()), build_output: Type.Optional(Type.Number()), generated: Type.Optional(Type.Number()), minified: Type.Optional(Type.Number()), too_large: Type.Optional(Type.Number()), symlink: Type.Optional(Type.Number()), unreadable: Type.Optional(Type.Number()), parse_failed: Type.Optional(Type.Number()), unsupported: Type.Optional(Type.Number()) }),
    skipped: Type.Array(Type.Object({})),
    skippedTruncated: Type.Boolean(),
    mode: Type.String(),
    generation: Type.Number(),
    nodes: Type.Number(),
    nodesByKind: Type.Object({ function: Type.Number(), type: Type.Number(), file: Type.Number(), module: Type.Number(), class: Type.Number(), interface: Type.Number(), method: Type.Number(), section: Type.Number() }),
    edges: Type.Number(),
    edgesByRelation: Type.Object({ imports: Type.Number(), contains: Type.Number(), calls: Type.Number(), references: Type.Number(), inherits: Type.Number(), implements: Type.Number(), tests: Type.Number(), documents: Type.Number(), co_changes: Type.Number(), dispatches: Type.Number() }),
    imports: Type.Object({ resolved: Type.Number(), unresolved: Type.Number(), external: Type.Number(), notFound: Type.Number() }),
    parseErrors: Type.Object({ files: Type.Number(), total: Type.Number(), worst: Type.Array(Type.Unknown()), truncated: Type.Boolean() }),
    git: Type.Union([Type.Object({ scanned: Type.Boolean(), commits: Type.Number(), head: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
    relinkedFiles: Type.Number(),
    parseWorkers: Type.Number(),
    elapsedMs: Type.Number(),
    phases: Type.Object({ read: Type.Number(), git: Type.Number(), walk: Type.Number(), parse: Type.Number(), persist: Type.Number(), build: Type.Number() }),
    workspace: Type.String(),
    scope_note: Type.Optional(Type.String()),
  }),
  tiers: ['essential'],
  // A full ingest replaces the stored graph (learned weights and memory stay). Static, so read-only
  // mode leaves it out of tools/list: no arguments make it a read.
  effect: 'destructive',
  stages: ['orient', 'operate'],
  next: 'seek',
  timeoutMs: 30 * 60_000,
  guide:
    'Ingest walks the workspace (respecting .gitignore; skipping vendored, generated, binary and oversized files), parses TypeScript/JavaScript, Python, Rust, Go, Java and Markdown, resolves imports and calls, and commits the graph to `.m1nd/` in one transaction. TS/JS calls are then resolved by the type checker in a worker (`type_checked` counts precise, pending and failed files); `wait_precise: false` returns before that pass ends. `incremental: true` (or `mode: "merge"`) re-parses only files whose content changed. Progress is one MCP progress scale (0–100, total 100) across phases, the phase and its own count in the message.',
  handler: async (args, call) => {
    const graph = graphOf(call);
    const engine = graph.engine;
    const adapter = args.adapter === 'auto' ? 'code' : args.adapter;
    if (adapter !== 'code') {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, `ingest adapter "${args.adapter}" is not supported by this server; only "code" (or "auto")`, {
        hint: `ingest({"agent_id":"${call.agentId}","path":"${engine.root}"})`,
      });
    }
    if (args.namespace !== undefined) {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, 'namespace applies to memory adapters, which this server does not ingest', { hint: 'drop namespace' });
    }
    if (args.include_dotfiles || args.dotfile_patterns.length > 0) {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, 'dotfiles are configuration, not code: this server does not ingest them', {
        hint: 'drop include_dotfiles / dotfile_patterns; read a dotfile with view',
      });
    }
    for (const [name, value] of [['path', args.path], ['project_root', args.project_root]] as const) {
      if (value === undefined) continue;
      const abs = path.resolve(engine.root, value);
      const rel = path.relative(engine.root, abs);
      if (rel.startsWith('..') || path.isAbsolute(rel)) {
        throw new M1ndError(ErrorCodes.PATH_ESCAPE, `${name} ${abs} is outside this server's workspace ${engine.root}`, {
          hint: `start a server for that repository (m1nd serve --workspace ${abs}), or ingest {"path":"${engine.root}"}`,
        });
      }
      // A typo must not run a full ingest (which replaces the stored graph) of the whole workspace.
      if (!existsSync(abs)) {
        throw new M1ndError(ErrorCodes.PATH_NOT_FOUND, `${name} "${value}" names nothing in the workspace ${engine.root}`, {
          hint: `the graph always covers the whole workspace: ingest({"agent_id":"${call.agentId}","path":"."})`,
        });
      }
    }
    // Ingests run one at a time: one queued behind another session's says so at once, not after it.
    const ahead = running.get(engine) ?? 0;
    running.set(engine, ahead + 1);
    if (ahead > 0) void call.progress(0, 1, 'waiting for the ingest already running to finish (ingests run one at a time)');
    const progress = ingestProgress((done, total, message) => void call.progress(done, total, message));
    try {
      const summary = await engine.ingest({
        incremental: args.incremental || args.mode === 'merge',
        signal: call.signal,
        onProgress: progress,
      });
      let precise = engine.preciseStatus();
      if (args.wait_precise && precise.running) {
        const pending = precise.pending;
        progress(0, pending, 'type-check');
        // The checker worker says how far its pass is (programs built, then files checked): passed on
        // while waiting, so a long pass keeps the client's progress moving (and its timeout reset).
        const watch = setInterval(() => {
          const p = engine.preciseStatus().progress;
          if (!p) return;
          const fraction = p.phase === 'programs' ? (0.3 * p.done) / Math.max(1, p.total) : 0.3 + (0.7 * p.done) / Math.max(1, p.total);
          progress(Math.round(fraction * 1000), 1000, 'type-check', p.phase === 'programs' ? `building programs ${p.done}/${p.total}` : `${p.done}/${p.total} files`);
        }, TYPE_CHECK_POLL_MS);
        try {
          precise = await engine.preciseIdle();
        } finally {
          clearInterval(watch);
        }
        progress(pending, pending, 'type-check');
      }
      progress.finish(`ingest done: ${summary.files.parsed} parsed, ${summary.files.unchanged} unchanged`);
      // Read after the wait: the node and edge counts are those of the graph the checker's pass left.
      const { skipped, skippedByReason, skippedTruncated, files, ...rest } = summary;
      // One count of what was not ingested: files.skipped is the sum of skipped_by_reason (the engine
      // leaves `unsupported` out of its own total), and the list says how much of it it shows.
      const skippedTotal = Object.values(skippedByReason).reduce((n: number, k) => n + (k ?? 0), 0);
      const listed = skipped.slice(0, 50);
      return {
        workspace: engine.root,
        scope_note: path.resolve(engine.root, args.path) === engine.root ? undefined : 'the whole workspace graph was refreshed (the graph always covers the workspace)',
        ...rest,
        files: { ...files, skipped: skippedTotal },
        skippedByReason,
        skipped: listed,
        skippedTruncated: skippedTruncated || listed.length < skipped.length,
        ...(skippedByReason.unsupported ? { skipped_note: `${skippedByReason.unsupported} unsupported file(s) (no parser for their language) are counted, not listed` } : {}),
        type_checked: preciseReport(precise),
      };
    } catch (error) {
      throw asHostError(error);
    } finally {
      running.set(engine, (running.get(engine) ?? 1) - 1);
    }
  },
});
