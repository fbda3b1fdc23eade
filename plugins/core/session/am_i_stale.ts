/** am_i_stale: which files this agent relies on changed or vanished since it saw them (or since ingest). */
import { statSync } from 'node:fs';
import path from 'node:path';
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { openSessionGraph } from '../analysis/graph-call.ts';
import { engineCall, slicePace } from '../../graph/api.ts';
import { diskFacts, storedFiles } from './stored-files.ts';
import { visitsOf, type SeenNode } from './visits.ts';

type Status = 'vanished' | 'not_found' | 'not_a_file' | 'changed_since_seen' | 'changed_during_session' | 'changed_since_ingest';
const MAX_FILES = 500;

export const amIStaleVerb = defineVerb({
  name: 'am_i_stale',
  description: 'Which files you rely on (given, or seen this session) changed or vanished since you saw them.',
  input: Type.Object({
    agent_id: AgentId,
    files: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: MAX_FILES })),
    nodes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: MAX_FILES })),
  }),
  output: Type.Object({
    note: Type.Optional(Type.String()),
    unchecked: Type.Optional(Type.Number()),
    tracked: Type.Object({ files_seen: Type.Number(), nodes_seen: Type.Number(), basis: Type.String() }),
    unknown_nodes: Type.Optional(Type.Array(Type.String())),
    checked: Type.Number(),
    stale_count: Type.Number(),
    stale: Type.Array(Type.Object({})),
    fresh: Type.Array(Type.String()),
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['edit', 'review', 'ground'],
  next: 'view',
  guide: [
    'The graph re-ingests edited files before each query, so "changed since ingest" is rarely what matters: what matters is whether *you* saw the current version. For each file it compares the disk with the moment you last received a result naming it (size and mtime recorded then):',
    '- `changed_since_seen`: edited after you saw it — re-read before relying on it (symbols you saw that moved or vanished are listed);',
    '- `vanished`: gone from disk (`not_found`: a path you name that neither the disk, the graph nor your session ever had; `not_a_file`: a folder);',
    '- `changed_during_session`: a file you name but were never shown, modified after your first call;',
    '- `changed_since_ingest`: its content differs from what the graph holds (the graph is behind: ingest).',
    `With neither files nor nodes, it checks what you were shown this session, the ${MAX_FILES} most recently shown first (\`unchecked\` counts the rest). What you were shown is recorded by view, batch_view, seek, search and the analysis verbs (activate, impact, why, focus, …).`,
  ].join('\n'),
  handler: async (args, call) => {
    const { engine, g } = await openSessionGraph(call);
    const visits = visitsOf(call.session, call.agentId);
    const firstSeen = call.session.agent(call.agentId)?.firstSeen ?? Date.now();
    const wanted = new Set<string>();
    const nodeChecks: SeenNode[] = [];
    const unknownNodes: string[] = [];
    // The workspace resolver refuses `..`, outside absolute paths, symlink escapes and NUL before any stat.
    for (const f of args.files ?? []) wanted.add(engineCall(() => engine.resolvePath(f.replace(/\\/g, '/'))).relative);
    for (const id of args.nodes ?? []) {
      // Exact ids only: a node that no longer exists must not resolve to a look-alike.
      const n = g.get(id);
      const seen = visits.nodes.get(id);
      if (seen) {
        wanted.add(seen.path);
        nodeChecks.push(seen);
      } else if (n) {
        wanted.add(n.path);
      } else unknownNodes.push(id);
    }
    const explicit = args.files !== undefined || args.nodes !== undefined;
    if (!explicit) {
      // Most recently shown first: past the cap, what is left unchecked is what the agent saw longest ago.
      for (const f of [...visits.files.values()].sort((a, b) => b.seenAt - a.seenAt)) wanted.add(f.path);
      nodeChecks.push(...visits.nodes.values());
    }
    const paths = [...wanted].slice(0, MAX_FILES);
    const unchecked = wanted.size - paths.length;
    const stored = storedFiles(engine, paths).files;
    const stale: Record<string, unknown>[] = [];
    const fresh: string[] = [];
    const nodesByPath = new Map<string, SeenNode[]>();
    for (const s of nodeChecks) {
      let list = nodesByPath.get(s.path);
      if (!list) nodesByPath.set(s.path, (list = []));
      list.push(s);
    }
    // A stat per file, and a read and hash for each that changed: in slices, never one long stretch.
    const pace = slicePace(8);
    for (const p of paths) {
      await pace();
      const st = statSync(path.join(engine.root, p), { throwIfNoEntry: false });
      const seen = visits.files.get(p);
      const row = stored.get(p);
      let status: Status | null = null;
      if (st?.isDirectory()) status = 'not_a_file';
      else if (!st || !st.isFile()) status = seen || row ? 'vanished' : 'not_found';
      else if (seen && (seen.mtimeMs !== st.mtimeMs || seen.size !== st.size)) status = 'changed_since_seen';
      else if (!seen && st.mtimeMs > firstSeen) status = 'changed_during_session';
      let graphState: 'current' | 'behind' | 'not_in_graph' = row ? 'current' : 'not_in_graph';
      if (st && row && (row.size !== st.size || row.mtimeMs !== st.mtimeMs)) {
        const disk = diskFacts(engine.root, p);
        if (disk && disk.hash !== row.hash) {
          graphState = 'behind';
          status ??= 'changed_since_ingest';
        }
      }
      const moved = (nodesByPath.get(p) ?? [])
        .map((s) => {
          const now = g.get(s.id);
          if (!now) return { id: s.id, status: 'vanished', seen_lines: s.lines };
          if (now.startLine !== s.lines[0] || now.endLine !== s.lines[1]) return { id: s.id, status: 'moved', seen_lines: s.lines, lines: [now.startLine, now.endLine] };
          return null;
        })
        .filter((x) => x !== null);
      if (!status && moved.length) status = 'changed_since_seen';
      if (!status) {
        fresh.push(p);
        continue;
      }
      stale.push({
        path: p,
        status,
        ...(seen ? { seen_at: new Date(seen.seenAt).toISOString(), seen_by: seen.verb } : {}),
        ...(st ? { modified_at: new Date(st.mtimeMs).toISOString() } : {}),
        ...(seen && st && seen.size !== st.size ? { size: [seen.size, st.size] } : {}),
        graph: graphState,
        ...(moved.length ? { symbols: moved.slice(0, 20) } : {}),
        ...(moved.length > 20 ? { symbols_not_listed: moved.length - 20 } : {}),
        next: status === 'not_a_file' ? 'a folder: name its files (glob lists them)' : status === 'not_found' ? 'check the path (glob or seek find the file you mean)' : status === 'vanished' ? 'drop it from your plan (or find where it went with seek)' : graphState === 'behind' ? (call.settings.readOnly ? 'view it again (this read-only server refuses ingest: the graph stays behind until a writable m1nd ingests)' : 'ingest incremental, then view it again') : `view({"file_path":"${p}"}) before relying on it`,
      });
    }
    return {
      checked: paths.length,
      stale_count: stale.length,
      stale,
      fresh: fresh.slice(0, 50),
      ...(fresh.length > 50 ? { fresh_not_listed: fresh.length - 50 } : {}),
      ...(unknownNodes.length ? { unknown_nodes: unknownNodes } : {}),
      tracked: { files_seen: visits.files.size, nodes_seen: visits.nodes.size, basis: explicit ? 'given' : 'seen this session' },
      ...(unchecked > 0 ? { unchecked, note: `checked the ${MAX_FILES} files you were shown most recently; ${unchecked} seen earlier are not checked: pass them in files to check them` } : {}),
      ...(paths.length === 0 ? { note: 'nothing to check: pass files or nodes, or read / query first' } : {}),
    };
  },
});
