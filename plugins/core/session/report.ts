/** report: a summary of this agent's session — queries, time, graph size, riskiest hotspots. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { fileRisks, slicePace, warmFileRisks } from '../../graph/api.ts';
import { openSessionGraph } from '../analysis/graph-call.ts';
import { capChars } from '../shared.ts';
import { visitsOf } from './visits.ts';

export const reportVerb = defineVerb({
  name: 'report',
  description: 'Session summary: queries by verb, elapsed time, graph size and the riskiest hotspots, with a markdown digest.',
  input: Type.Object({
    agent_id: AgentId,
    max_output_chars: Type.Optional(Type.Integer({ minimum: 200, description: 'Cap on the markdown digest' })),
  }),
  output: Type.Object({
    markdown_truncated: Type.Optional(Type.Boolean()),
    chars_cut: Type.Optional(Type.Number()),
    agent: Type.String(),
    session: Type.Object({ first_seen: Type.Union([Type.String(), Type.Null()]), elapsed_s: Type.Number(), queries: Type.Number(), by_verb: Type.Object({}) }),
    recent_queries: Type.Array(Type.Object({})),
    graph: Type.Object({ nodes: Type.Number(), edges: Type.Number(), files: Type.Number(), generation: Type.Number(), stale: Type.Boolean() }),
    hotspots: Type.Array(Type.Object({})),
    markdown: Type.String(),
  }),
  effect: 'read',
  stages: ['handoff', 'review'],
  guide: [
    'Queries come from the host\'s per-agent call counts; the recent-query log (subject, result count, time) covers the analysis verbs.',
    'Hotspot risk per file = 0.35 × centrality (PageRank) + 0.35 × dependents (other files depending on it) + 0.2 × churn (git commits) + 0.1 if untested. max_output_chars caps the markdown digest only.',
  ].join('\n'),
  handler: async (args, call) => {
    const { engine, g } = await openSessionGraph(call);
    const agent = call.session.agent(call.agentId);
    const visits = visitsOf(call.session, call.agentId);
    const now = Date.now();
    const elapsedS = agent ? Math.round((now - agent.firstSeen) / 100) / 10 : 0;
    const byVerb = Object.fromEntries([...(agent?.verbs ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]));
    const recent = visits.queries.slice(-10).map((q) => ({ verb: q.verb, subject: q.subject, results: q.results, ms: Math.round(q.elapsedMs * 10) / 10 }));
    // Made in slices first (one piece: 42 ms on the stdlib); then read from the cache.
    if (g.nodeCount) await warmFileRisks(g, engine.pagerank().scores, slicePace(8));
    const hotspots = g.nodeCount
      ? fileRisks(g, engine.pagerank().scores)
          .slice(0, 10)
          .map((r) => ({
            path: g.node(r.file)!.path,
            risk: Math.round(r.risk * 1000) / 1000,
            dependents: r.dependents,
            commits: r.commits,
            tested: r.tested,
          }))
      : [];
    const status = engine.status();
    const graphInfo = { nodes: status.nodes, edges: status.edges, files: engine.filePaths().length, generation: status.loadedGeneration, stale: status.stale };
    const md = [
      `# Session report — ${call.agentId}`,
      `${agent?.queryCount ?? 0} calls over ${elapsedS} s; ${visits.files.size} files and ${visits.nodes.size} symbols seen.`,
      `Graph: ${graphInfo.nodes} nodes, ${graphInfo.edges} edges, ${graphInfo.files} files (generation ${graphInfo.generation}${graphInfo.stale ? ', stale' : ''}).`,
      '',
      '## Calls',
      ...Object.entries(byVerb).map(([v, n]) => `- ${v}: ${n}`),
      ...(recent.length ? ['', '## Recent queries', ...recent.map((q) => `- ${q.verb} "${q.subject}" → ${q.results} (${q.ms} ms)`)] : []),
      ...(hotspots.length ? ['', '## Riskiest files', ...hotspots.map((h) => `- ${h.path} — risk ${h.risk}, ${h.dependents} dependents, ${h.commits} commits${h.tested ? '' : ', untested'}`)] : []),
    ].join('\n');
    const digest = capChars(md, args.max_output_chars);
    return {
      agent: call.agentId,
      session: {
        first_seen: agent ? new Date(agent.firstSeen).toISOString() : null,
        elapsed_s: elapsedS,
        queries: agent?.queryCount ?? 0,
        by_verb: byVerb,
      },
      recent_queries: recent,
      graph: graphInfo,
      hotspots,
      markdown: digest.text,
      ...(digest.truncated ? { markdown_truncated: true, chars_cut: digest.chars_cut } : {}),
    };
  },
});
