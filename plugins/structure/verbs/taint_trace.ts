/** taint_trace: paths from entry points to sinks with no validation, sanitisation or auth boundary on them. */
import { AgentId, defineVerb, packToTokenBudgetPaced, StringEnum, Type, type CallContext } from '../../../core/index.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { NamePattern, ScopeParam, scopeFilter } from '../scope.ts';
import { entryFor, entryLabel, findTaintEntries, traceTaint, type TaintEntry } from '../taint.ts';
import { sinkTypesOf, TAINT_TYPES, type TaintType } from '../taint-kinds.ts';

const MAX_AUTO_ENTRIES = 200;

export const taintTraceVerb = defineVerb({
  name: 'taint_trace',
  description: 'Paths from entry points (given, or functions and top-level statements reading request/argv/env input) along calls to sinks (exec, SQL, file writes, eval, HTML) with no validation/sanitisation/auth boundary.',
  input: Type.Object({
    agent_id: AgentId,
    entry_nodes: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 50, description: 'Entry functions (id, path:line or name; a file\'s path:line is its top-level statement there, e.g. an inline handler); default: detected from the code' })),
    taint_type: Type.Optional(StringEnum([...TAINT_TYPES], { default: 'user_input', description: 'Sinks looked for (user_input = all)' })),
    boundary_patterns: Type.Optional(Type.Array(NamePattern, { maxItems: 20, workspacePath: false, description: 'More boundary function names (calls to them guard a path)' })),
    max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 40, default: 15, description: 'Most call hops from an entry' })),
    min_probability: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.01, description: 'Drop paths whose product of edge confidences is lower' })),
    scope: ScopeParam,
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'Most leaks listed' })),
    token_budget: Type.Optional(Type.Integer({ minimum: 200, maximum: 20_000, default: 3000, description: 'Result size bound' })),
    time_budget_ms: timeBudgetParam(5_000),
  }),
  output: Type.Object({
    taint_type: Type.String(),
    entries: Type.Array(Type.String()),
    entry_count: Type.Number(),
    entries_detected: Type.Boolean(),
    entries_capped: Type.Optional(Type.String()),
    leaks: Type.Array(Type.Object({})),
    leak_count: Type.Number(),
    guarded: Type.Array(Type.Object({})),
    guarded_count: Type.Number(),
    risk: Type.Number(),
    budget: Type.Object({ requested_tokens: Type.Number(), used_tokens: Type.Number(), kept: Type.Number(), dropped: Type.Number() }),
    time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  next: 'view',
  guide:
    'Sources, sinks and boundaries are recognised in each function\'s code (comments removed), not its name. Entries are functions, and files\' top-level statements (an inline `app.get(\'/x\', (req, res) => …)` handler, a script\'s `__main__` block), named `path:line`. A boundary is a function whose code calls a validator/sanitiser/auth check (validate*, sanitize*, escape*, quote, authorize*, verify*, schema.parse, parseInt, encodeURIComponent, shlex.quote, require*…, plus `boundary_patterns`), or calls a function that validates its input (named so, or raising/throwing under a condition and returning its parameter), or defines one; the walk stops there. `leaks` are sinks reached with no boundary on the path (`missing` says which kind); `guarded` names the boundary that covers each other sink. Probability is the product of edge resolution confidences.',
  handler: async (args, call: CallContext) => {
    const { graph, engine } = await structureCall(call);
    const deadline = new Deadline(args.time_budget_ms ?? 5_000, call.signal);
    const scope = scopeFilter(engine, args.scope);
    const taint = (args.taint_type ?? 'user_input') as TaintType;
    const extra = args.boundary_patterns?.length ? new RegExp(`\\b(?:${args.boundary_patterns.map((p) => p.replace(/[.$]/g, (c) => `\\${c}`)).join('|')})\\s*\\(`) : null;
    const detected = args.entry_nodes?.length ? null : await findTaintEntries(engine, scope.has, deadline, MAX_AUTO_ENTRIES, extra);
    const entries: TaintEntry[] = detected ? detected.entries : args.entry_nodes!.map((e) => entryFor(engine, graph.node(e), e, extra));
    const { leaks, guarded, entriesDone } = await traceTaint(engine, entries, { sinkTypes: sinkTypesOf(taint), maxDepth: args.max_depth ?? 15, minProbability: args.min_probability ?? 0.01, extraBoundaries: extra, deadline });
    const missing = (types: string[]) => `no ${types.map((t) => (t === 'command' || t === 'code' ? 'sanitisation/allow-listing' : t === 'sql' ? 'parameterisation/escaping' : t === 'html' ? 'escaping' : 'validation')).filter((x, i, a) => a.indexOf(x) === i).join(' or ')} and no auth check between entry and sink`;
    const rows = leaks.slice(0, args.top_k ?? 20).map((l) => ({ ...l, missing: missing(l.sink_types) }));
    const { kept, report } = await packToTokenBudgetPaced(rows, Math.max(200, (args.token_budget ?? 3000) - 500), () => deadline.pace());
    return {
      taint_type: taint,
      entries: entries.slice(0, 20).map(entryLabel),
      entry_count: entries.length,
      entries_detected: !args.entry_nodes?.length,
      ...(detected?.capped ? { entries_capped: `more than ${MAX_AUTO_ENTRIES} entry points read untrusted input: the first ${MAX_AUTO_ENTRIES} in graph order are traced; narrow \`scope\` or give \`entry_nodes\`` } : {}),
      leaks: kept,
      leak_count: leaks.length,
      guarded: guarded.slice(0, 10),
      guarded_count: guarded.length,
      risk: leaks.length === 0 ? 0 : Math.round(Math.min(1, Math.max(...leaks.map((l) => l.probability)) * (1 - 1 / (1 + leaks.length))) * 100) / 100,
      budget: report,
      time: deadline.report(`${entries.length - entriesDone} entry point(s) not traced`),
    };
  },
});
