/**
 * The blast radius of changing a file: everything that depends on it, walked backwards over
 * dependency edges (calls, references, inheritance, imports) up to three hops, with test files kept
 * apart as the tests that cover it (from `tests` edges and test code depending on it).
 */
import type { GraphService } from '../graph/api.ts';
import { DEPENDENCY_RELATIONS, isTestNode } from './neighbourhood.ts';

/** Nodes a walk visits at most (a hub file would otherwise reach the whole graph). */
const MAX_VISITED = 5000;

export interface BlastRadius {
  /** Dependent files (outside the file itself) by the hop they are first reached at. */
  filesByHop: Map<string, number>;
  nodes: number;
  /** Test files covering the file or its symbols. */
  tests: Set<string>;
  truncated: boolean;
}

/** Walks dependents of `path` (the file and its symbols) back `hops` hops. */
export function blastRadius(graph: GraphService, path: string, hops = 3): BlastRadius {
  const g = graph.engine.graph;
  const start = [`file:${path}`, ...graph.fileSymbols(path).map((n) => n.id)].filter((id) => g.get(id));
  const seen = new Set(start);
  const filesByHop = new Map<string, number>();
  const tests = new Set<string>();
  let frontier = start;
  let truncated = false;
  for (let hop = 1; hop <= hops && frontier.length; hop++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const e of g.incoming(id)) {
        if (e.relation !== 'tests' && e.relation !== 'imports' && !DEPENDENCY_RELATIONS.includes(e.relation)) continue;
        const src = g.get(e.source);
        if (!src || src.kind === 'module' || src.path === path) continue;
        if (e.relation === 'tests' || isTestNode(graph, src)) {
          if (hop === 1) tests.add(src.path); // tests of the file itself, not of its dependents
          continue;
        }
        if (seen.has(src.id)) continue;
        if (seen.size >= MAX_VISITED) {
          truncated = true;
          continue;
        }
        seen.add(src.id);
        if (!filesByHop.has(src.path)) filesByHop.set(src.path, hop);
        next.push(src.id);
      }
    }
    frontier = next;
  }
  return { filesByHop, nodes: seen.size - start.length, tests, truncated };
}
