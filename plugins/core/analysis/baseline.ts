/**
 * The session baseline `drift` compares against when `since` is `last_session`: the graph digest
 * and learned weights as this server found them, i.e. what the previous session persisted.
 * It is captured the first time any analysis or session verb runs, *before* that call refreshes
 * the graph; a re-ingest run by other verbs before that first call is therefore part of the
 * baseline (the engine keeps no history of earlier generations to recover it from).
 */
import type { CodeGraphEngine } from '../../graph/api.ts';
import { captureGraph, digestGraphPaced, type GraphCapture, type GraphDigest } from '../../graph/api.ts';
import type { GraphService } from '../../graph/api.ts';

export interface SessionBaseline {
  digest: GraphDigest;
  learned: ReturnType<GraphService['learned']['snapshot']>;
  capturedAt: number;
}

/**
 * What was captured at the first call: the graph's digest inputs (node references and edge arrays,
 * copied in ~10 ms), digested only when `drift` asks. Digesting at once cost the first analysis
 * call of a session 1.5 s of CPU on a 270K-node graph.
 */
interface Captured {
  capture: GraphCapture | null;
  generation: number;
  baseline: SessionBaseline | null;
  learned: SessionBaseline['learned'];
}

const baselines = new WeakMap<CodeGraphEngine, Captured>();

/**
 * Captures the baseline if this server has not yet (free after the first call; on it a copy of the
 * graph's columns, ~16 ms on the stdlib). True when it captured now.
 */
export function noteSessionBaseline(graph: GraphService): boolean {
  if (baselines.has(graph.engine)) return false;
  const engine = graph.engine;
  baselines.set(engine, { capture: captureGraph(engine.graph), generation: engine.generation, baseline: null, learned: graph.learned.snapshot() });
  return true;
}

/** The baseline captured for this engine, if any (digested on the first ask, between `pace()`s). */
export async function sessionBaseline(graph: GraphService, pace: () => Promise<void>): Promise<SessionBaseline | undefined> {
  const c = baselines.get(graph.engine);
  if (!c) return undefined;
  if (!c.baseline) {
    const capture = c.capture!;
    const digest = await digestGraphPaced(capture, c.generation, pace);
    c.baseline ??= { digest, learned: c.learned, capturedAt: capture.at };
    c.capture = null;
  }
  return c.baseline;
}
