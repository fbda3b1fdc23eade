/**
 * The session baseline `drift` compares against when `since` is `last_session`: the graph digest
 * and learned weights as this server found them, i.e. what the previous session persisted.
 * It is captured the first time any analysis or session verb runs, *before* that call refreshes
 * the graph; a re-ingest run by other verbs before that first call is therefore part of the
 * baseline (the engine keeps no history of earlier generations to recover it from).
 */
import type { CodeGraphEngine } from '../../graph/api.ts';
import { digestGraph, type GraphDigest } from '../../graph/api.ts';
import type { GraphService } from '../../graph/api.ts';

export interface SessionBaseline {
  digest: GraphDigest;
  learned: ReturnType<GraphService['learned']['snapshot']>;
  capturedAt: number;
}

const baselines = new WeakMap<CodeGraphEngine, SessionBaseline>();

/** Captures the baseline if this server has not yet (cheap after the first call). */
export function noteSessionBaseline(graph: GraphService): void {
  if (baselines.has(graph.engine)) return;
  const engine = graph.engine;
  baselines.set(engine, { digest: digestGraph(engine.graph, engine.generation), learned: graph.learned.snapshot(), capturedAt: Date.now() });
}

/** The baseline captured for this engine, if any. */
export function sessionBaseline(graph: GraphService): SessionBaseline | undefined {
  return baselines.get(graph.engine);
}
