/** coverage_session: what this agent's session has and has not looked at. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { fileRisks, slicePace, warmFileRisks } from '../../graph/api.ts';
import { openSessionGraph } from '../analysis/graph-call.ts';
import { visitsOf } from './visits.ts';

/** Verbs that list paths without showing their contents: counted, not recorded as visits. */
const UNRECORDED = ['glob'];

export const coverageSessionVerb = defineVerb({
  name: 'coverage_session',
  description: 'What this agent has and has not visited this session: files, symbols, directories, verbs, and unvisited hotspots.',
  input: Type.Object({ agent_id: AgentId }),
  output: Type.Object({
    agent: Type.String(),
    files: Type.Object({ visited: Type.Integer(), total: Type.Integer(), pct: Type.Number() }),
    symbols: Type.Object({ visited: Type.Integer(), total: Type.Integer(), pct: Type.Number() }),
    by_directory: Type.Array(Type.Object({ dir: Type.String(), visited: Type.Integer(), total: Type.Integer(), pct: Type.Number() })),
    unvisited_directories: Type.Array(Type.String()),
    not_listed: Type.Optional(Type.Object({ by_directory: Type.Integer(), unvisited_directories: Type.Integer() })),
    unvisited_hotspots: Type.Array(Type.Object({ path: Type.String(), risk: Type.Number(), dependents: Type.Integer() })),
  }),
  effect: 'read',
  stages: ['review', 'handoff'],
  next: 'focus',
  guide:
    'Visited = shown to you by view, batch_view, seek, search or an analysis verb (activate, impact, why, focus, …); glob lists paths without recording them. `unvisited_hotspots` are the riskiest files (see `report`) you have not been shown.',
  handler: async (args, call) => {
    const { engine, g } = await openSessionGraph(call);
    const visits = visitsOf(call.session, call.agentId);
    const files = engine.filePaths();
    const symbols = g.nodeCount - files.length - g.nodeCountsByKind().module;
    const fileSet = new Set(files);
    const seenFiles = [...visits.files.keys()].filter((p) => fileSet.has(p));
    const seenNodes = [...visits.nodes.keys()].filter((id) => g.get(id));
    const dirs = new Map<string, { total: number; visited: number }>();
    const top = (p: string) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '.');
    for (const p of files) {
      const d = dirs.get(top(p)) ?? { total: 0, visited: 0 };
      d.total++;
      if (visits.files.has(p)) d.visited++;
      dirs.set(top(p), d);
    }
    const unvisited = [...dirs].filter(([, d]) => d.visited === 0).map(([dir]) => dir);
    const pct = (a: number, b: number) => (b > 0 ? Math.round((1000 * a) / b) / 10 : 0);
    const agent = call.session.agent(call.agentId);
    const verbs = Object.fromEntries([...(agent?.verbs ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]));
    // Made in slices first (one piece: 42 ms on the stdlib); then read from the cache.
    if (g.nodeCount) await warmFileRisks(g, engine.pagerank().scores, slicePace(8));
    const hotspots = g.nodeCount
      ? fileRisks(g, engine.pagerank().scores)
          .filter((r) => !visits.files.has(g.node(r.file)!.path))
          .slice(0, 10)
          .map((r) => ({ path: g.node(r.file)!.path, risk: Math.round(r.risk * 1000) / 1000, dependents: r.dependents }))
      : [];
    const unrecorded = UNRECORDED.filter((v) => agent?.verbs.has(v)).map((v) => `${v} ×${agent!.verbs.get(v)}`);
    return {
      agent: call.agentId,
      files: { visited: seenFiles.length, total: files.length, pct: pct(seenFiles.length, files.length) },
      symbols: { visited: seenNodes.length, total: symbols, pct: pct(seenNodes.length, symbols) },
      by_directory: [...dirs]
        .map(([dir, d]) => ({ dir, visited: d.visited, total: d.total, pct: pct(d.visited, d.total) }))
        .sort((a, b) => b.visited - a.visited || b.total - a.total)
        .slice(0, 20),
      unvisited_directories: unvisited.slice(0, 30),
      ...(dirs.size > 20 || unvisited.length > 30 ? { not_listed: { by_directory: Math.max(0, dirs.size - 20), unvisited_directories: Math.max(0, unvisited.length - 30) } } : {}),
      unvisited_hotspots: hotspots,
      verbs,
      queries: visits.queries.length,
      ...(unrecorded.length ? { not_recorded: `${unrecorded.join(", ")} listed paths: counted, not recorded as visits` } : {}),
    };
  },
});
