/** flow_simulate: concurrent flows from entry points that reach shared mutable state with no lock on the way. */
import { AgentId, defineVerb, packToTokenBudget, Type } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { simulateFlows } from '../flow.ts';
import { NamePattern, ScopeParam, scopeFilter } from '../scope.ts';
import { entryFor, entryLabel, findTaintEntries, type TaintEntry } from '../taint.ts';

const MAX_AUTO_ENTRIES = 200;

const names = (list: readonly string[] | undefined, call: boolean) =>
  list?.length ? new RegExp(`(?<![\\w$])(?:${list.map((p) => p.replace(/[.$]/g, (c) => `\\${c}`)).join('|')})${call ? '\\s*\\(' : '$'}`) : null;

export const flowSimulateVerb = defineVerb({
  name: 'flow_simulate',
  description: 'Concurrent flows from entry points (given, or functions and top-level statements reading request/argv input) along calls to module-level state written with no lock on the path; turbulence points with the paths that meet there.',
  input: Type.Object({
    agent_id: AgentId,
    entry_nodes: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 100, description: 'Entry functions (id, path:line or name; a file\'s path:line is its top-level statement there); default: those reading request/argv/env input' })),
    num_particles: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 2, description: 'Concurrent runs of each entry' })),
    lock_patterns: Type.Optional(Type.Array(NamePattern, { maxItems: 20, description: 'More lock function names (a call to one is a valve)' })),
    read_only_patterns: Type.Optional(Type.Array(NamePattern, { maxItems: 20, description: 'State names never counted as shared writes' })),
    max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 40, default: 15, description: 'Most call hops from an entry' })),
    turbulence_threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.5, description: 'Least score reported' })),
    include_paths: Type.Optional(Type.Boolean({ default: true, description: 'Include one path per entry' })),
    max_total_steps: Type.Optional(Type.Integer({ minimum: 100, maximum: 1_000_000, default: 50_000, description: 'Bound on nodes visited over all walks' })),
    scope_filter: ScopeParam,
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'Most turbulence points listed' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 3000, description: 'Result size bound' })),
    time_budget_ms: timeBudgetParam(5_000),
  }),
  output: Type.Object({
    entries: Type.Array(Type.String()),
    entry_count: Type.Number(),
    entries_capped: Type.Optional(Type.String()),
    turbulence: Type.Array(Type.Object({})),
    turbulence_count: Type.Number(),
    valves: Type.Array(Type.Object({})),
    steps: Type.Number(),
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['diagnose'],
  next: 'view',
  guide:
    'Entries are functions and files\' top-level statements (an inline `app.get(\'/x\', async (req, res) => …)` handler), named `path:line`; a statement\'s own writes count and its walk starts at the calls it makes. State = a module-level name of a file (let/var, a const container mutated in place, a Python global rebound under `global` or mutated), written in a function\'s code. In JS/TS and a Python `async def` (one thread) a write counts only when an `await` splits it from a read of the same state; elsewhere every unlocked write counts. A function whose code takes a lock (with lock, acquire(), runExclusive, navigator.locks, synchronized, .lock(), or `lock_patterns`) is a valve: the walk stops there. score = min(1, 0.25 × entries × num_particles): with the default 2 particles one handler alone racing with itself scores 0.5.',
  handler: async (args, call) => {
    const { graph, engine } = await structureCall(call);
    const deadline = new Deadline(args.time_budget_ms ?? 5_000, call.signal);
    const scope = scopeFilter(engine, args.scope_filter);
    const detected = args.entry_nodes?.length ? null : await findTaintEntries(engine, scope.has, deadline, MAX_AUTO_ENTRIES, null);
    const entries: TaintEntry[] = detected ? detected.entries : args.entry_nodes!.map((e) => entryFor(engine, graph.node(e), e, null));
    const result = await simulateFlows(engine, entries, {
      maxDepth: args.max_depth ?? 15,
      particles: args.num_particles ?? 2,
      threshold: args.turbulence_threshold ?? 0.5,
      maxSteps: args.max_total_steps ?? 50_000,
      extraLocks: names(args.lock_patterns, true),
      readOnly: names(args.read_only_patterns, false),
      deadline,
    });
    const rows = result.turbulence.slice(0, args.top_k ?? 20).map((t) => (args.include_paths === false ? { ...t, paths: [] } : t));
    const { kept, report } = packToTokenBudget(rows, Math.max(200, (args.token_budget ?? 3000) - 400));
    return {
      entries: entries.slice(0, 20).map(entryLabel),
      entry_count: entries.length,
      ...(detected?.capped ? { entries_capped: `more than ${MAX_AUTO_ENTRIES} entry points read untrusted input: the first ${MAX_AUTO_ENTRIES} in graph order are walked; narrow \`scope_filter\` or give \`entry_nodes\`` } : {}),
      turbulence: kept,
      turbulence_count: result.turbulence.length,
      valves: result.valves.slice(0, 10),
      steps: result.steps,
      budget: report,
      time: deadline.report(`${entries.length - result.entriesDone} entry point(s) not walked`),
    };
  },
});
