/** trace: a stack trace or error output → frames → graph nodes, ranked suspects with callers and a fix scope. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import type { GraphNode } from '../../graph/api.ts';
import { historyOf } from '../service.ts';
import { filesByBase, matchFrameFile } from '../frame-files.ts';
import { parseTrace, TRACE_LANGUAGES, type Frame } from '../stack-frames.ts';
import { iso, round3 } from '../call.ts';
import type { HistoryIndex } from '../history-index.ts';

/** Weights of a suspect's score: where it is in the trace, how recently its file changed, how central it is. */
const WEIGHTS = { position: 0.6, recency: 0.25, centrality: 0.15 } as const;

export const traceVerb = defineVerb({
  name: 'trace',
  description: 'Map a stack trace or error output (Python, Node/TS, Go, Rust, Java, .NET) to graph nodes: ranked suspects, their callers and a fix scope.',
  input: Type.Object({
    agent_id: AgentId,
    error_text: Type.String({ minLength: 1, maxLength: 64_000, description: 'The trace or error output, verbatim' }),
    language: Type.Optional(StringEnum(TRACE_LANGUAGES, { description: 'Trace format; detected when omitted' })),
    window_hours: Type.Number({ minimum: 1, maximum: 100_000, default: 24, description: 'Recency half-life: a file changed this long before the newest commit scores 0.5' }),
    top_k: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
  }),
  output: Type.Object({
    note: Type.Optional(Type.String()),
    frames: Type.Number(),
    mapped_frames: Type.Number(),
    external_frames: Type.Number(),
    weights: Type.Object({ position: Type.Number(), recency: Type.Number(), centrality: Type.Number() }),
    suspects: Type.Array(Type.Object({})),
    callers: Type.Array(Type.Object({})),
    fix_scope: Type.Array(Type.String()),
    error: Type.Optional(Type.String()),
    language: Type.String(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['diagnose'],
  next: 'view',
  guide: [
    'Frames are read innermost first (Python traces are reversed). Each frame\'s path is matched to a workspace file (exact, then the longest path suffix; Java/.NET by package) and its line to the innermost symbol there; frames in no workspace file (libraries, runtime) are counted as `external_frames`.',
    `score = ${WEIGHTS.position} × position (0.75^k for the k-th mapped frame) + ${WEIGHTS.recency} × recency (git: 0.5^(age of the file's last commit / window_hours)) + ${WEIGHTS.centrality} × centrality (PageRank), each shown.`,
    '`callers` are the call sites into the top suspects; `fix_scope` the files of suspects and callers.',
  ].join('\n'),
  handler: async (args, call) => {
    const history = historyOf(call);
    const engine = await history.graph.requireGraph();
    const g = engine.graph;
    const parsed = parseTrace(args.error_text, args.language);
    if (parsed.frames.length === 0) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, 'no stack frame recognised in error_text', {
        hint: `paste the full trace (with its "File …, line N" / "at f (file:line:col)" / "file.go:N" lines), or set language to one of ${TRACE_LANGUAGES.join(', ')}`,
      });
    }
    // Recency needs git; a workspace without it still gets position and centrality.
    let index: HistoryIndex | null = null;
    let historyNote: string | undefined;
    try {
      index = (await history.current()).index;
    } catch (error) {
      if ((error as M1ndError).code !== ErrorCodes.HISTORY_NO_GIT) throw error;
      historyNote = `recency is 0: ${(error as Error).message}`;
    }
    const byBase = filesByBase(engine.filePaths());
    const pr = engine.pagerank().scores;
    let maxPr = 0;
    for (const x of pr) if (x > maxPr) maxPr = x;
    const suspects = new Map<string, { node: GraphNode; frame: Frame; position: number; k: number; pathConfidence: number }>();
    let mapped = 0;
    let external = 0;
    for (const frame of parsed.frames) {
      const file = matchFrameFile(frame, engine.root, byBase);
      if (!file) {
        external++;
        continue;
      }
      const node = (frame.line !== null ? engine.symbolAt(file.path, frame.line) : null) ?? byName(engine.graph, file.path, frame.func) ?? g.get(`file:${file.path}`)!;
      const k = mapped++;
      if (!suspects.has(node.id)) suspects.set(node.id, { node, frame, position: Math.pow(0.75, k), k, pathConfidence: file.confidence });
    }
    const halfLife = args.window_hours * 3600;
    const rows = [...suspects.values()].map((s) => {
      const fh = index?.files.get(s.node.path);
      const last = fh ? index!.commits[fh.commits.at(-1)!].time : null;
      const recency = last !== null ? Math.pow(0.5, Math.max(0, index!.newest - last) / halfLife) : 0;
      const centrality = maxPr > 0 ? Math.log1p((pr[g.indexOf(s.node.id)] ?? 0) / maxPr * 1000) / Math.log1p(1000) : 0;
      const score = WEIGHTS.position * s.position * s.pathConfidence + WEIGHTS.recency * recency + WEIGHTS.centrality * centrality;
      // A placeholder in angle brackets (<module>, <anonymous>, <lambda>, <init>) names no symbol to check against.
      const named = s.frame.func && !/^<.*>$/.test(s.frame.func) ? s.frame.func : null;
      const nameMatch = named ? s.node.label === named || s.node.label.endsWith(`.${named}`) : null;
      return {
        id: s.node.id,
        kind: s.node.kind,
        path: s.node.path,
        lines: [s.node.startLine, s.node.endLine],
        frame: { index: s.k, line: s.frame.line, function: s.frame.func },
        ...(nameMatch === false ? { name_mismatch: `the trace says ${s.frame.func}` } : {}),
        score: round3(score),
        components: { position: round3(s.position), path_match: s.pathConfidence, recency: round3(recency), centrality: round3(centrality) },
        ...(last !== null ? { file_last_commit: iso(last) } : {}),
      };
    });
    rows.sort((a, b) => b.score - a.score || a.frame.index - b.frame.index);
    const top = rows.slice(0, args.top_k);
    const callers = new Map<string, { id: string; path: string; calls: string }>();
    for (const s of top.slice(0, 3)) {
      for (const e of g.incoming(s.id, 'calls')) {
        const src = g.get(e.source);
        if (src && !suspects.has(src.id) && callers.size < 20) callers.set(src.id, { id: src.id, path: src.path, calls: s.id });
      }
    }
    return {
      language: parsed.language,
      ...(parsed.message ? { error: parsed.message.slice(0, 300) } : {}),
      frames: parsed.frames.length,
      mapped_frames: mapped,
      external_frames: external,
      weights: WEIGHTS,
      suspects: top,
      callers: [...callers.values()],
      fix_scope: [...new Set([...top.slice(0, 3).map((s) => s.path), ...[...callers.values()].map((c) => c.path)])],
      ...(historyNote ? { note: historyNote } : {}),
    };
  },
});

/** A symbol of `path` named `func` (frames without a line, or a line outside every symbol). */
function byName(g: import('../../graph/api.ts').CodeGraph, path: string, func: string | null): GraphNode | null {
  if (!func) return null;
  for (const e of g.outgoing(`file:${path}`, 'contains')) {
    const n = g.get(e.target);
    if (n && n.label === func) return n;
  }
  return null;
}
