/** cross_verify: the graph against the disk — existence, line counts, content hashes — and stale feedback evidence. */
import { statSync } from 'node:fs';
import path from 'node:path';
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import { pathScope, slicePace, type CodeGraphEngine } from '../../graph/api.ts';
import { diskFacts, storedFiles } from '../session/stored-files.ts';
import { openGraph, round3 } from './graph-call.ts';

const CHECKS = ['existence', 'loc', 'hash', 'evidence_freshness'] as const;
type Check = (typeof CHECKS)[number];
const MAX_LISTED = 100;

export const crossVerifyVerb = defineVerb({
  name: 'cross_verify',
  description: 'Check the graph against the disk (file existence, line counts, content hashes) and flag stale entries and stale feedback.',
  input: Type.Object({
    agent_id: AgentId,
    scope: Type.Optional(Type.String({ description: 'Only under this path' })),
    check: Type.Array(StringEnum(CHECKS), { default: [], description: '[] = all' }),
    include_dotfiles: Type.Boolean({ default: false }),
    dotfile_patterns: Type.Array(Type.String(), { default: [] }),
  }),
  output: Type.Object({
    verdict: Type.String(),
    elapsed_ms: Type.Number(),
    compared_files: Type.Optional(Type.Number()),
    evidence: Type.Optional(Type.Object({})),
    store: Type.Optional(Type.String()),
    omitted: Type.Optional(Type.Number()),
    checked_files: Type.Number(),
    checks: Type.Array(Type.String()),
    stale_count: Type.Number(),
    stale: Type.Array(Type.Object({})),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['review', 'operate'],
  next: 'ingest',
  guide: [
    'The graph is refreshed first (the watcher\'s pending edits are re-ingested), so what remains are entries the graph cannot know changed: edits made while no server watched, read-only servers, watcher misses.',
    '- `existence`: a file in the graph is gone from disk (`missing_on_disk`), or a file the ingest would read appeared since the last ingest and is not in the graph (`not_in_graph`; files the last ingest saw and left out, generated or minified, are not);',
    '- `loc`: its line count differs from the ingested one (reported only with a changed hash, so counting conventions never raise false alarms);',
    '- `hash`: its sha1 differs from the one ingest stored;',
    '- `evidence_freshness`: `learn` feedback whose node vanished or moved since it was given, and your warmup boosts on nodes that no longer exist.',
    'The verdict says when hashes and line counts could not be compared (store rows unreadable; `compared_files` counts those that were). Fix stale entries with ingest (incremental). Dotfiles are never in the graph, so include_dotfiles / dotfile_patterns are refused.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    if (args.include_dotfiles || args.dotfile_patterns.length > 0) {
      throw new M1ndError(ErrorCodes.GRAPH_UNSUPPORTED_PARAM, 'the graph never holds dotfiles (ingest skips them), so there is nothing to verify there', {
        hint: 'drop include_dotfiles / dotfile_patterns; read a dotfile with view',
      });
    }
    const { graph, engine, g } = await openGraph(call);
    const checks = new Set<Check>(args.check.length ? args.check : CHECKS);
    const scope = pathScope(engine, args.scope);
    const paths = engine.filePaths().filter(scope.has);
    const stored = checks.has('hash') || checks.has('loc') ? storedFiles(engine) : undefined;
    const stale: { path: string; issues: string[] }[] = [];
    let staleCount = 0;
    // Files whose stored row was compared with the disk (hash/loc); 0 when the rows could not be read.
    let compared = 0;
    // Files read and hashed between paces (8 ms slices): a stdlib-sized workspace read in one loop
    // held the event loop ~230 ms.
    const readDisk = checks.has('hash') || checks.has('loc');
    const pace = slicePace(8);
    for (let k = 0; k < paths.length; k++) {
      await pace();
      const p = paths[k];
      const issues: string[] = [];
      if (readDisk) {
        const disk = diskFacts(engine.root, p);
        const row = stored?.files.get(p);
        if (!disk) {
          if (checks.has('existence')) issues.push('missing_on_disk');
        } else if (row) {
          compared++;
          const changed = row.hash !== disk.hash;
          if (changed && checks.has('hash')) issues.push('hash_changed');
          if (changed && checks.has('loc') && row.loc !== disk.loc) issues.push(`loc ${row.loc}→${disk.loc}`);
        } else if (stored?.available) issues.push('not_in_store');
      } else if (checks.has('existence') && !statSync(path.join(engine.root, p), { throwIfNoEntry: false })?.isFile()) {
        issues.push('missing_on_disk');
      }
      if (issues.length) {
        staleCount++;
        if (stale.length < MAX_LISTED) stale.push({ path: p, issues });
      }
    }
    // Files on disk the graph lacks: the ingest's walk against the store's rows, new since the last ingest.
    if (checks.has('existence')) {
      const known = new Set(paths);
      for (const p of await filesSinceIngest(engine, scope.has)) {
        if (known.has(p)) continue;
        staleCount++;
        if (stale.length < MAX_LISTED) stale.push({ path: p, issues: ['not_in_graph'] });
      }
    }
    let evidence: Record<string, unknown> | undefined;
    if (checks.has('evidence_freshness')) {
      const feedback: { id: string; status: string; lines?: [number, number] }[] = [];
      for (const [id, entry] of graph.learned.nodes()) {
        if (!scope.has(entry.path)) continue;
        const now = g.get(id);
        if (!now) feedback.push({ id, status: 'vanished' });
        else if (now.startLine !== entry.lines[0] || now.endLine !== entry.lines[1]) feedback.push({ id, status: 'moved', lines: [now.startLine, now.endLine] });
      }
      const boosts = [...graph.boosts.map(call.agentId).keys()].filter((id) => !g.get(id));
      evidence = { learned_nodes: graph.learned.nodes().length, stale_feedback: feedback.slice(0, MAX_LISTED), boosts_on_missing_nodes: boosts.slice(0, MAX_LISTED) };
    }
    return {
      checked_files: paths.length,
      checks: [...checks],
      stale_count: staleCount,
      stale,
      ...(staleCount > stale.length ? { omitted: staleCount - stale.length } : {}),
      ...(stored && !stored.available ? { store: stored.note } : {}),
      ...(evidence ? { evidence } : {}),
      ...(stored ? { compared_files: compared } : {}),
      verdict: verdictOf(paths.length, staleCount, stored && !stored.available ? stored.note! : undefined, call.agentId),
      elapsed_ms: round3(performance.now() - t0),
    };
  },
});

/** Files the ingest's walk selects under the scope that have no stored row and changed since the last ingest (none without a store). */
async function filesSinceIngest(engine: CodeGraphEngine, within: (path: string) => boolean): Promise<string[]> {
  try {
    const since = engine.status().ingestedAt;
    return since === null ? [] : (await engine.storeDrift(8, since, within)).added;
  } catch {
    return []; // no store, or its rows unreadable: nothing says what the last ingest saw
  }
}

/** The one-line verdict: stale files first, then whether anything could be compared at all. */
function verdictOf(checked: number, stale: number, unreadable: string | undefined, agentId: string): string {
  const fix = `run ingest({"agent_id":"${agentId}","path":".","incremental":true})`;
  if (unreadable) {
    return `could not verify hashes or line counts (${unreadable})${stale ? `; ${stale} file(s) missing on disk: ${fix}` : ''}`;
  }
  if (stale) return `${stale} file(s) differ from the graph: ${fix}`;
  return checked === 0 ? 'nothing to verify: the graph holds no files here' : 'graph matches disk';
}
