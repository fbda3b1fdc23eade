/** glob: file paths in the graph matching a glob, by path or by centrality. */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { GitignoreRules, pathScope, PRUNED_SEGMENTS, slicePace } from '../../graph/api.ts';
import { containedRank } from './file-rank.ts';
import { graphOf } from '../shared.ts';

export const globVerb = defineVerb({
  name: 'glob',
  description: 'File paths in the graph matching a glob (src/**/*.ts), sorted by path or by centrality (activation: PageRank of the file and its symbols).',
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
  guide: 'Patterns are workspace-relative: `./src/*.ts`, `/src/*.ts` (anchored at the root, as in .gitignore) and the workspace\'s own absolute path all mean `src/*.ts`; a pattern without `/` matches base names anywhere (`*.py`). Only files the graph holds are listed; no match comes with a `note` saying how many files the graph holds and naming matching workspace files it does not (config, data: `view` reads them).',
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
    // A file's centrality holds its symbols' (file-rank.ts).
    const mass = new Map<string, number>();
    if (pr) {
      const pace = slicePace(8);
      for (const p of paths) {
        await pace();
        mass.set(p, containedRank(g, pr, g.indexOf(`file:${p}`)));
      }
    }
    const rank = (p: string) => mass.get(p) ?? 0;
    if (pr) paths = [...paths].sort((a, b) => rank(b) - rank(a) || a.localeCompare(b));
    const shown = paths.slice(0, args.top_k);
    return {
      pattern: args.pattern,
      total,
      paths: args.sort === 'activation' ? shown.map((p) => ({ path: p, pagerank: Number(rank(p).toFixed(6)) })) : shown,
      truncated: total > shown.length,
      ...(total === 0 ? { note: `no file of the graph (${engine.filePaths().length} files) matches ${JSON.stringify(pattern)}${scope.prefix ? ` under ${JSON.stringify(scope.prefix)}` : ''}; ${await outsideGraph(engine.root, pattern, scope.has)}` } : {}),
    };
  },
});

/** Matching workspace files listed in a note, at most. */
const LISTED_OUTSIDE = 10;
/** The walk for them stops after this long (a huge workspace): the note then says the list may be short. */
const WALK_MS = 2000;

/**
 * For a pattern no graph file matches: the workspace files it matches that the graph does not hold
 * (no parser for them: pyproject.toml, *.yml), outside hidden, dependency, build and git-ignored folders.
 */
async function outsideGraph(root: string, pattern: string, inScope: (path: string) => boolean): Promise<string> {
  const hint = 'patterns are relative to the workspace root, and a pattern without "/" matches base names anywhere';
  const isMatch = picomatch(pattern, { dot: false, basename: !pattern.includes('/') });
  const rules = new GitignoreRules(root);
  const found: string[] = [];
  const stack = [''];
  const deadline = performance.now() + WALK_MS;
  let cut = false;
  while (stack.length) {
    if (performance.now() > deadline) {
      cut = true;
      break;
    }
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(join(root, dir), { withFileTypes: true });
    } catch {
      continue; // unreadable: the ingest cannot read it either
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!PRUNED_SEGMENTS.has(e.name) && !rules.ignores(rel, true)) stack.push(rel);
      } else if (e.isFile() && isMatch(rel) && inScope(rel) && !rules.ignores(rel, false)) found.push(rel);
    }
  }
  if (!found.length) return cut ? `${hint} (the workspace walk for files outside the graph stopped after ${WALK_MS / 1000} s)` : hint;
  found.sort();
  const shown = found.slice(0, LISTED_OUTSIDE).map((p) => JSON.stringify(p)).join(', ');
  const more = found.length > LISTED_OUTSIDE ? ` and ${found.length - LISTED_OUTSIDE} more` : '';
  return `the workspace holds ${found.length}${cut ? '+' : ''} matching file(s) the graph does not (no parser for them, or the ingest skipped them): ${shown}${more}; view reads text files`;
}
