/** differential: diffs two graph snapshots (the live graph, persist checkpoints, or git refs), optionally narrowed by a question or focus nodes. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import { DEPENDENCY_RELATIONS, RELATION_CODE, slicePace, tokenize, type CodeGraphEngine, type GraphService } from '../../graph/api.ts';
import { round3, workspaceArg } from '../call.ts';
import { requireRepo } from '../git.ts';
import { historyOf } from '../service.ts';
import { checkpointSnapshot, currentSnapshot, edgeParts, gitSnapshot, SNAPSHOT_SLICE_MS, type Snapshot, type SnapNode } from '../snapshots.ts';
import { diffSymbols, type PreviewSymbol } from '../symbol-diff.ts';

/** One snapshot as the answer describes it; `unreadable`: files of a ref whose git objects could not be read (left out). */
const Side = Type.Object({ snapshot: Type.String(), kind: Type.String(), commit: Type.Optional(Type.String()), files: Type.Number(), nodes: Type.Number(), edges: Type.Union([Type.Number(), Type.Null()]), unreadable: Type.Optional(Type.Object({ count: Type.Number(), sample: Type.Array(Type.String()) })) });
const SnapshotSpec = Type.String({ minLength: 1, maxLength: 256, description: 'current, a persist checkpoint name, or a git ref (prefix checkpoint: or git: to disambiguate)' });
const DEPENDENCY = new Set<string>(DEPENDENCY_RELATIONS);
const yieldTurn = () => new Promise<void>((r) => setImmediate(r));

export const differentialVerb = defineVerb({
  name: 'differential',
  description: 'Diff two graph snapshots (current, a persist checkpoint, or a git ref): files, nodes and edges added/removed/changed, coupling changes; narrowed by a question or focus nodes.',
  input: Type.Object({
    agent_id: AgentId,
    snapshot_a: SnapshotSpec,
    snapshot_b: SnapshotSpec,
    question: Type.Optional(Type.String({ maxLength: 500, description: 'Keep changes whose ids mention its words' })),
    focus_nodes: Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 50, default: [], description: 'Keep changes in these nodes\' files and their neighbours\' files' }),
    top_k: Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Entries listed per list (counts are complete)' }),
    budget_ms: Type.Integer({ minimum: 1000, maximum: 300_000, default: 60_000, description: 'Time budget for building ref snapshots and diffing' }),
  }),
  output: Type.Object({
    a: Side,
    b: Side,
    files: Type.Object({ added: Type.Array(Type.String()), removed: Type.Array(Type.String()), modified: Type.Array(Type.String()) }),
    nodes: Type.Object({ added: Type.Array(Type.String()), removed: Type.Array(Type.String()), changed: Type.Array(Type.String()) }),
    // Edge lists when both snapshots have edges; `unavailable` alone when a checkpoint has none.
    edges: Type.Object({ added: Type.Optional(Type.Array(Type.String())), removed: Type.Optional(Type.Array(Type.String())), reweighted: Type.Optional(Type.Array(Type.Unknown())), counts: Type.Optional(Type.Unknown()), unavailable: Type.Optional(Type.String()) }),
    coupling: Type.Array(Type.Object({ a: Type.String(), b: Type.String(), before: Type.Number(), after: Type.Number() })),
    counts: Type.Object({ files_added: Type.Number(), files_removed: Type.Number(), files_modified: Type.Number(), nodes_added: Type.Number(), nodes_removed: Type.Number(), nodes_changed: Type.Number(), coupling_changes: Type.Number(), compared_by_text: Type.Number(), compared_by_span: Type.Number() }),
    narrowed_by: Type.Optional(Type.Object({ words: Type.Optional(Type.Array(Type.String())), focus_files: Type.Optional(Type.Array(Type.String())) })),
    stopped_early: Type.Optional(Type.String()),
    elapsed_ms: Type.Object({ total: Type.Number(), snapshot_a: Type.Number(), snapshot_b: Type.Number() }),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['review'],
  next: 'impact',
  guide: [
    'A snapshot is `current` (the live graph), the name of a checkpoint stored with persist {"action":"checkpoint","path":"<name>"} (the one verb that creates snapshots), or a git ref: its files (up to 1 MiB each; never fetched from a remote) are exported to a temporary directory and ingested by a second engine (with the type-checker pass only when compared with a live graph that ran it), cached for the two newest commits. A bare name is a checkpoint when one has it, else a ref.',
    '- files: added/removed/modified by content hash. nodes: added/removed by id; changed = a symbol whose own lines differ (nested symbols masked; from the two texts, or by line span when a checkpoint has no text).',
    '- edges (both snapshots from graphs; checkpoints keep none): added/removed, reweighted when |Δweight| ≥ 0.05; co_changes edges (from git history, not code) are left out. coupling: file pairs whose count of dependency edges (calls, imports, references, inheritance…) changed.',
    '- question keeps entries whose id contains one of its words (≥ 3 letters); focus_nodes keeps entries in the focus nodes\' files and the files of their direct code neighbours (in the live graph; not containment or co-change). Lists stop at top_k, counts are complete; `stopped_early` says when the budget ran out and which part is missing.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const history = historyOf(call);
    const graph = history.graph;
    const engine = await graph.requireGraph();
    const signal = AbortSignal.any([AbortSignal.timeout(args.budget_ms), ...(call.signal ? [call.signal] : [])]);
    const overBudget = () => performance.now() - t0 > args.budget_ms;
    // A ref graph runs the type-checker pass only when it is compared with a live graph that ran it (two refs compare alike without it).
    const live = engine.preciseStatus();
    const precise = (args.snapshot_a === 'current' || args.snapshot_b === 'current') && (live.precise > 0 || live.lastPass !== null);
    const a = await takeSnapshot(engine, args.snapshot_a, signal, precise);
    const aMs = performance.now() - t0;
    const b = await takeSnapshot(engine, args.snapshot_b, signal, precise);
    const bMs = performance.now() - t0 - aMs;

    const focusFiles = focusOf(graph, engine, args.focus_nodes.map((n) => workspaceArg(graph, 'differential', n)));
    const words = args.question ? [...new Set(tokenize(args.question))].filter((w) => w.length >= 3) : [];
    const keepPath = (p: string) => !focusFiles || focusFiles.has(p);
    const keepId = (id: string, path: string) => keepPath(path) && (words.length === 0 || words.some((w) => id.toLowerCase().includes(w)));
    let stopped: string | null = null;

    // Every loop over files, nodes and edges below runs in slices (a big repository's edges are ~10⁵).
    const pace = slicePace(SNAPSHOT_SLICE_MS);
    let step = 0;
    /** True every 256 items: time to ask `pace` whether the slice is spent. */
    const due = (): boolean => (++step & 255) === 0;

    // Files.
    const files = { added: [] as string[], removed: [] as string[], modified: [] as string[] };
    for (const [p, h] of b.files) {
      if (due()) await pace();
      if (!a.files.has(p)) files.added.push(p);
      else if (a.files.get(p) !== h) files.modified.push(p);
    }
    for (const p of a.files.keys()) {
      if (due()) await pace();
      if (!b.files.has(p)) files.removed.push(p);
    }

    // Nodes.
    const nodes = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
    for (const [id, n] of b.nodes) {
      if (due()) await pace();
      if (!a.nodes.has(id) && keepId(id, n.path)) nodes.added.push(id);
    }
    for (const [id, n] of a.nodes) {
      if (due()) await pace();
      if (!b.nodes.has(id) && keepId(id, n.path)) nodes.removed.push(id);
    }
    let textCompared = 0;
    let spanCompared = 0;
    const aByFile = await groupByFile(a.nodes, due, pace);
    const bByFile = await groupByFile(b.nodes, due, pace);
    for (const path of files.modified) {
      if (overBudget()) {
        stopped = `symbol comparison stopped after ${textCompared + spanCompared} of ${files.modified.length} modified files`;
        break;
      }
      if (!keepPath(path)) continue;
      const oldSyms = (aByFile.get(path) ?? []).map(preview);
      const newSyms = (bByFile.get(path) ?? []).map(preview);
      const [oldText, newText] = await Promise.all([a.text(path), b.text(path)]);
      let changed: string[];
      if (oldText !== null && newText !== null) {
        changed = diffSymbols(oldText, oldSyms, newText, newSyms).changed;
        textCompared++;
      } else {
        changed = newSyms.filter((s) => {
          const o = a.nodes.get(s.id);
          return o && o.end - o.start !== s.endLine - s.startLine;
        }).map((s) => s.id);
        spanCompared++;
      }
      for (const id of changed) if (a.nodes.has(id) && keepId(id, path)) nodes.changed.push(id);
      await yieldTurn();
    }

    // Edges and coupling.
    let edges: Record<string, unknown> | null = null;
    const coupling: { a: string; b: string; before: number; after: number }[] = [];
    if (a.edges && b.edges && !stopped) {
      const added: string[] = [];
      const removed: string[] = [];
      const reweighted: { edge: string; before: number; after: number }[] = [];
      const pairs = new Map<string, [number, number]>();
      const visit = async (e: Map<string, number>, other: Map<string, number>, side: 0 | 1, from: Snapshot, into: string[] | null) => {
        for (const [key, w] of e) {
          if (due()) await pace();
          const [s, rel, t] = edgeParts(key);
          if (rel === 'co_changes') continue;
          const sn = from.nodes.get(s);
          const tn = from.nodes.get(t);
          if (!sn || !tn) continue;
          if (DEPENDENCY.has(rel) && sn.path !== tn.path) {
            const pk = sn.path < tn.path ? `${sn.path}\0${tn.path}` : `${tn.path}\0${sn.path}`;
            const c = pairs.get(pk) ?? [0, 0];
            c[side]++;
            pairs.set(pk, c);
          }
          const inScope = (keepPath(sn.path) || keepPath(tn.path)) && (words.length === 0 || words.some((wd) => s.toLowerCase().includes(wd) || t.toLowerCase().includes(wd)));
          if (!inScope) continue;
          const o = other.get(key);
          if (o === undefined) into?.push(`${s} —${rel}→ ${t}`);
          else if (side === 1 && Math.abs(o - w) >= 0.05) reweighted.push({ edge: `${s} —${rel}→ ${t}`, before: round3(o), after: round3(w) });
        }
      };
      await visit(b.edges, a.edges, 1, b, added);
      await visit(a.edges, b.edges, 0, a, removed);
      for (const [pk, [before, after]] of pairs) {
        if (due()) await pace();
        if (before === after) continue;
        const [x, y] = pk.split('\0');
        if (!keepPath(x) && !keepPath(y)) continue;
        coupling.push({ a: x, b: y, before, after });
      }
      coupling.sort((p, q) => Math.abs(q.after - q.before) - Math.abs(p.after - p.before) || (p.a < q.a ? -1 : 1));
      edges = {
        added: added.sort().slice(0, args.top_k),
        removed: removed.sort().slice(0, args.top_k),
        reweighted: reweighted.sort((x, y) => Math.abs(y.after - y.before) - Math.abs(x.after - x.before)).slice(0, args.top_k),
        counts: { added: added.length, removed: removed.length, reweighted: reweighted.length },
      };
    }
    // Narrowed by words, a file's own changed symbols keep it (one pass over the nodes, not one per file).
    const filesWithNodes = new Set<string>();
    for (const list of words.length ? [nodes.added, nodes.removed, nodes.changed] : []) {
      for (const id of list) {
        if (due()) await pace();
        const hash = id.indexOf('#');
        if (hash >= 0) filesWithNodes.add(id.slice(id.indexOf(':') + 1, hash));
      }
    }
    const scopeFiles = (list: string[]) => list.filter(keepPath).filter((p) => words.length === 0 || words.some((w) => p.toLowerCase().includes(w)) || filesWithNodes.has(p));
    const fileLists = { added: scopeFiles(files.added), removed: scopeFiles(files.removed), modified: scopeFiles(files.modified) };
    for (const list of [fileLists.added, fileLists.removed, fileLists.modified, nodes.added, nodes.removed, nodes.changed]) list.sort();
    return {
      a: describe(a),
      b: describe(b),
      files: { added: fileLists.added.slice(0, args.top_k), removed: fileLists.removed.slice(0, args.top_k), modified: fileLists.modified.slice(0, args.top_k) },
      nodes: { added: nodes.added.slice(0, args.top_k), removed: nodes.removed.slice(0, args.top_k), changed: nodes.changed.slice(0, args.top_k) },
      edges: edges ?? { unavailable: 'a checkpoint keeps files and symbols, not edges: compare the live graph or git refs for edges' },
      coupling: coupling.slice(0, args.top_k),
      counts: {
        files_added: fileLists.added.length,
        files_removed: fileLists.removed.length,
        files_modified: fileLists.modified.length,
        nodes_added: nodes.added.length,
        nodes_removed: nodes.removed.length,
        nodes_changed: nodes.changed.length,
        coupling_changes: coupling.length,
        compared_by_text: textCompared,
        compared_by_span: spanCompared,
      },
      ...(words.length || focusFiles ? { narrowed_by: { ...(words.length ? { words } : {}), ...(focusFiles ? { focus_files: [...focusFiles].sort().slice(0, 30) } : {}) } } : {}),
      ...(stopped ? { stopped_early: stopped } : {}),
      elapsed_ms: { total: Math.round(performance.now() - t0), snapshot_a: Math.round(aMs), snapshot_b: Math.round(bMs) },
    };
  },
});

async function groupByFile(nodes: Map<string, SnapNode>, due: () => boolean, pace: () => Promise<void>): Promise<Map<string, (SnapNode & { id: string })[]>> {
  const out = new Map<string, (SnapNode & { id: string })[]>();
  for (const [id, n] of nodes) {
    if (due()) await pace();
    if (n.kind === 'file') continue;
    let list = out.get(n.path);
    if (!list) out.set(n.path, (list = []));
    list.push({ ...n, id });
  }
  return out;
}

function preview(n: SnapNode & { id: string }): PreviewSymbol {
  return { id: n.id, kind: n.kind, startLine: n.start, endLine: n.end };
}

function describe(s: Snapshot) {
  return {
    snapshot: s.label,
    kind: s.kind,
    ...(s.commit ? { commit: s.commit.slice(0, 12) } : {}),
    files: s.files.size,
    nodes: s.nodes.size,
    edges: s.edges?.size ?? null,
    ...(s.unreadable ? { unreadable: { count: s.unreadable.length, sample: s.unreadable.slice(0, 5) } } : {}),
  };
}

/** Resolves a snapshot spec: current, checkpoint:<name>, git:<ref>, or a bare checkpoint name / ref. */
async function takeSnapshot(engine: CodeGraphEngine, spec: string, signal: AbortSignal, precise: boolean): Promise<Snapshot> {
  if (spec === 'current') return currentSnapshot(engine);
  const explicitCp = spec.startsWith('checkpoint:');
  const explicitGit = spec.startsWith('git:');
  const name = explicitCp ? spec.slice(11) : explicitGit ? spec.slice(4) : spec;
  if (!explicitGit) {
    const cp = engine.storeExists() ? await checkpointSnapshot(engine, name) : null;
    if (cp) return cp;
    if (explicitCp) {
      const known = engine.status().checkpoints.map((c) => c.name);
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no checkpoint named "${name}"`, { hint: known.length ? `one of: ${known.join(', ')}` : 'store one first: persist {"action":"checkpoint","path":"<name>"}' });
    }
  }
  requireRepo(engine.root);
  return gitSnapshot(engine.root, name, { typeCheck: precise, signal });
}

/** The files of the focus nodes and of their direct neighbours, or null when there is no focus. */
function focusOf(graph: GraphService, engine: CodeGraphEngine, focus: readonly string[]): Set<string> | null {
  if (focus.length === 0) return null;
  const g = engine.graph;
  const out = new Set<string>();
  for (const text of focus) {
    const node = graph.node(text);
    out.add(node.path);
    const i = g.indexOf(node.id);
    const ids = node.kind === 'file' ? [i, ...graph.fileSymbols(node.path).map((s) => g.indexOf(s.id))] : [i];
    for (const k of ids) {
      if (k < 0) continue;
      const add = (j: number, rel: number) => {
        const n = g.node(j);
        if (n && n.kind !== 'module' && rel !== RELATION_CODE.contains && rel !== RELATION_CODE.co_changes) out.add(n.path);
      };
      g.forEachOut(k, (j, _w, rel) => add(j, rel));
      g.forEachIn(k, (j, _w, rel) => add(j, rel));
    }
  }
  return out;
}
