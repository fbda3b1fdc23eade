/**
 * Antibodies from `learn` corrections. When an agent confirms result nodes with `learn` (feedback
 * `correct` or `partial`: "this is the bug"), the normalised AST shape of each confirmed function,
 * method or class is captured right then — before the agent fixes the code, which changes the shape
 * — and kept in the store (namespace `antibody_learn`, the newest MAX_CAPTURES). `antibody_create`
 * with `pattern.from_learn` turns one into an antibody; when no capture matches (feedback given
 * before this plugin ran) it falls back to the learn events the graph keeps and reads the node's
 * current shape.
 */
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphNode, GraphService } from '../graph/api.ts';
import { Deadline } from './deadline.ts';
import { collectShapes } from './shapes.ts';

const NAMESPACE = 'antibody_learn';
const MAX_CAPTURES = 200;
const MAX_NODES = 10;
const SHAPE_KINDS: ReadonlySet<string> = new Set(['function', 'method', 'class']);

/** One confirmed node's shape at the time of the correction. */
export interface CapturedShape {
  node: string;
  path: string;
  lines: [number, number];
  shingles: number[];
  tokens: number;
}

/** What one `learn` correction captured. */
export interface LearnCapture {
  at: number;
  agent: string;
  query: string;
  feedback: 'correct' | 'partial';
  shapes: CapturedShape[];
}

/** Captures being written, per engine: antibody_create waits for them (a learn just before it). */
const pending = new WeakMap<object, Set<Promise<void>>>();

/**
 * Reads the shapes of a correction's nodes — called before `learn` runs, so the code is the one the
 * agent confirmed, not a fix written right after; null when nothing is to be captured.
 */
export async function shapesToCapture(graph: GraphService, input: { agent: string; query: string; feedback: string; nodeIds: readonly string[] }): Promise<LearnCapture | null> {
  if (!graph.writable || (input.feedback !== 'correct' && input.feedback !== 'partial')) return null;
  const nodes: GraphNode[] = [];
  for (const id of input.nodeIds.slice(0, MAX_NODES)) {
    try {
      const n = graph.node(id);
      if (SHAPE_KINDS.has(n.kind)) nodes.push(n);
    } catch {
      // a name learn resolves another way: nothing to capture for it
    }
  }
  if (nodes.length === 0) return null;
  const { shapes } = await collectShapes(graph, nodes, new Deadline(10_000));
  const captured: CapturedShape[] = [];
  for (const n of nodes) {
    const s = shapes.get(n.id);
    if (s) captured.push({ node: n.id, path: n.path, lines: [n.startLine, n.endLine], shingles: [...s.shingles], tokens: s.tokens });
  }
  return captured.length ? { at: Date.now(), agent: input.agent, query: input.query, feedback: input.feedback as LearnCapture['feedback'], shapes: captured } : null;
}

/** Stores a capture once its `learn` succeeded (the newest MAX_CAPTURES are kept); never throws. */
export function keepCapture(graph: GraphService, capture: Promise<LearnCapture | null>): void {
  const engine = graph.engine;
  let set = pending.get(engine);
  if (!set) pending.set(engine, (set = new Set()));
  const work = capture
    .then((record) => {
      if (!record) return;
      const mem = engine.memory;
      mem.transaction(() => {
        mem.set(NAMESPACE, `${String(record.at).padStart(15, '0')}:${record.agent}`, record);
        const all = mem.list(NAMESPACE, '', MAX_CAPTURES * 2);
        for (const old of all.slice(0, Math.max(0, all.length - MAX_CAPTURES))) mem.delete(NAMESPACE, old.key);
      });
    })
    .catch(() => undefined);
  set.add(work);
  void work.finally(() => set.delete(work));
}

/**
 * The shape a `from_learn` reference names: the newest correction by this agent (any agent when it
 * has none) whose query is `ref` (or any, for "latest"); within it `node` when given, else its
 * first shaped node. Falls back to the graph's learn events with the node's current shape.
 */
export async function learnedShape(graph: GraphService, agent: string, ref: string, node?: string): Promise<{ shape: CapturedShape; learned: { at: string; query: string; feedback: string; agent: string; shape_from: 'correction' | 'current_code' } }> {
  const engine = graph.engine;
  await Promise.all([...(pending.get(engine) ?? [])]);
  const wantQuery = ref.trim().toLowerCase() === 'latest' ? null : ref.trim();
  const wantNode = node ? graph.node(node).id : null;
  const fits = (query: string, nodes: readonly string[]) => (wantQuery === null || query === wantQuery) && (wantNode === null || nodes.includes(wantNode));
  const captures = engine.storeExists() ? engine.memory.list<LearnCapture>(NAMESPACE, '', MAX_CAPTURES * 2).map((e) => e.value).reverse() : [];
  const capture = captures.find((c) => c.agent === agent && fits(c.query, c.shapes.map((s) => s.node))) ?? captures.find((c) => fits(c.query, c.shapes.map((s) => s.node)));
  if (capture) {
    const shape = capture.shapes.find((s) => wantNode === null || s.node === wantNode)!;
    return { shape, learned: { at: new Date(capture.at).toISOString(), query: capture.query, feedback: capture.feedback, agent: capture.agent, shape_from: 'correction' } };
  }
  // No capture: a correction from before captures existed, read from the graph's learn events.
  const events = graph.learned.events(200).filter((e) => e.feedback !== 'wrong').reverse();
  const event = events.find((e) => e.agent === agent && fits(e.query, e.nodes)) ?? events.find((e) => fits(e.query, e.nodes));
  const target = event ? (event.nodes.map((id) => engine.getNode(id)).find((n) => n && SHAPE_KINDS.has(n.kind) && (wantNode === null || n.id === wantNode)) ?? null) : null;
  if (!event || !target) {
    throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no learn correction${wantQuery ? ` for the query "${wantQuery}"` : ''}${wantNode ? ` on ${wantNode}` : ''} confirms a function, method or class`, {
      hint: 'confirm the buggy function first: learn({query, feedback: "correct", node_ids: ["<function id>"]}), then antibody_create({name, pattern: {from_learn: "<that query>"}}); or pass pattern.from_node',
    });
  }
  const { shapes } = await collectShapes(graph, [target], new Deadline(30_000));
  const s = shapes.get(target.id);
  if (!s) throw new M1ndError(ErrorCodes.GRAPH_NODE_NOT_FOUND, `could not read the code of ${target.id}`, { hint: 'ingest again (the file may have changed), then retry' });
  return {
    shape: { node: target.id, path: target.path, lines: [target.startLine, target.endLine], shingles: [...s.shingles], tokens: s.tokens },
    learned: { at: new Date(event.at).toISOString(), query: event.query, feedback: event.feedback, agent: event.agent, shape_from: 'current_code' },
  };
}
