/** glob: file paths in the graph matching a glob, by path or by centrality. */
import picomatch from 'picomatch';
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { pathScope } from '../../graph/api.ts';
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
  output: Type.Object({ pattern: Type.String(), total: Type.Number(), paths: Type.Union([Type.Array(Type.String()), Type.Array(Type.Object({}))]), truncated: Type.Boolean(), note: Type.Optional(Type.String()) }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['find'],
  guide: 'Patterns are workspace-relative: `./src/*.ts`, `/src/*.ts` (anchored at the root, as in .gitignore) and the workspace\'s own absolute path all mean `src/*.ts`; a pattern without `/` matches base names anywhere (`*.py`). No match comes with a `note` saying how many files the graph holds.',
  handler: async (args, call) => {
    const engine = await graphOf(call).requireGraph();
    // Paths are workspace-relative: `./x`, the workspace's own absolute path and a leading `/`
    // (anchored at the root, as in .gitignore) all mean the same relative pattern.
    const relative = (text: string): string => {
      const root = `${engine.root.replace(/\/+$/, '')}/`;
      const t = text.startsWith(root) ? text.slice(root.length) : text;
      return t.replace(/^(\.\/|\/)+/, '');
    };
    const scope = pathScope(engine, args.scope);
    const pattern = relative(args.pattern);
    // A bare pattern like `*.py` matches basenames anywhere, as in .gitignore.
    const isMatch = picomatch(pattern, { dot: false, basename: !pattern.includes('/') });
    let paths = engine.filePaths().filter((p) => scope.has(p) && isMatch(p));
    const total = paths.length;
    const g = engine.graph;
    const pr = args.sort === 'activation' ? engine.pagerank().scores : null;
    const rank = (p: string) => pr?.[g.indexOf(`file:${p}`)] ?? 0;
    if (pr) paths = [...paths].sort((a, b) => rank(b) - rank(a) || a.localeCompare(b));
    const shown = paths.slice(0, args.top_k);
    return {
      pattern: args.pattern,
      total,
      paths: args.sort === 'activation' ? shown.map((p) => ({ path: p, pagerank: Number(rank(p).toFixed(6)) })) : shown,
      truncated: total > shown.length,
      ...(total === 0 ? { note: `no file of the graph (${engine.filePaths().length} files) matches ${JSON.stringify(pattern)}${scope.prefix ? ` under ${JSON.stringify(scope.prefix)}` : ''}; patterns are relative to the workspace root, and a pattern without "/" matches base names anywhere` } : {}),
    };
  },
});
