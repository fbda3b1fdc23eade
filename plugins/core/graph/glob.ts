/** glob: file paths in the graph matching a glob, by path or by centrality. */
import picomatch from 'picomatch';
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { graphOf } from '../shared.ts';

export const globVerb = defineVerb({
  name: 'glob',
  description: 'File paths in the graph matching a glob (src/**/*.ts), sorted by path or by centrality (activation).',
  input: Type.Object({
    agent_id: AgentId,
    pattern: Type.String({ minLength: 1 }),
    scope: Type.Optional(Type.String({ description: 'Only under this directory' })),
    top_k: Type.Integer({ minimum: 1, default: 200 }),
    sort: StringEnum(['path', 'activation'] as const, { default: 'path' }),
  }),
  output: Type.Object({ pattern: Type.String(), total: Type.Number(), paths: Type.Union([Type.Array(Type.String()), Type.Array(Type.Object({}))]), truncated: Type.Boolean() }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['find'],
  handler: async (args, call) => {
    const engine = await graphOf(call).requireGraph();
    const scope = args.scope?.replace(/^\.\//, '').replace(/\/+$/, '');
    const pattern = args.pattern.replace(/^\.\//, '');
    // A bare pattern like `*.py` matches basenames anywhere, as in .gitignore.
    const isMatch = picomatch(pattern, { dot: false, basename: !pattern.includes('/') });
    let paths = engine.filePaths().filter((p) => (!scope || p === scope || p.startsWith(`${scope}/`)) && isMatch(p));
    const total = paths.length;
    const g = engine.graph;
    const pr = engine.pagerank().scores;
    const rank = (p: string) => pr[g.indexOf(`file:${p}`)] ?? 0;
    if (args.sort === 'activation') paths = [...paths].sort((a, b) => rank(b) - rank(a) || a.localeCompare(b));
    const shown = paths.slice(0, args.top_k);
    return {
      pattern: args.pattern,
      total,
      paths: args.sort === 'activation' ? shown.map((p) => ({ path: p, pagerank: Number(rank(p).toFixed(6)) })) : shown,
      truncated: total > shown.length,
    };
  },
});
