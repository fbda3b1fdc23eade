/**
 * The blast radius of changing a file: everything that depends on it, walked backwards over
 * dependency edges (calls, references, inheritance, imports) up to three hops, with test files kept
 * apart as the tests that cover it (from `tests` edges and test code depending on it).
 */
import type { GraphService } from '../graph/api.ts';
import { DEPENDENCY_RELATIONS, incomingWithInstantiations, isTestNode } from './neighbourhood.ts';

/** Nodes a walk visits at most (a hub file would otherwise reach the whole graph). */
const MAX_VISITED = 5000;

export interface BlastRadius {
  /** Dependent files (outside the file itself) by the hop they are first reached at. */
  filesByHop: Map<string, number>;
  nodes: number;
  /** Test files covering the file or its symbols directly. */
  tests: Set<string>;
  /** Test files reaching it only through its dependents, by the hop they are first reached at (2 = a test of a direct dependent). */
  testsViaDependents: Map<string, number>;
  truncated: boolean;
}

/**
 * Walks dependents of `path` (the file and its symbols) back `hops` hops. A test reached past the
 * first hop counts as reaching the file through its dependents only along code edges (a test calling
 * a caller of the file's code), never through an import alone: every test importing a package's
 * entry file would otherwise reach every module the entry re-exports.
 */
export function blastRadius(graph: GraphService, path: string, hops = 3): BlastRadius {
  const g = graph.engine.graph;
  const start = [`file:${path}`, ...graph.fileSymbols(path).map((n) => n.id)].filter((id) => g.get(id));
  const seen = new Set(start);
  const filesByHop = new Map<string, number>();
  const tests = new Set<string>();
  const testsViaDependents = new Map<string, number>();
  // `code`: the node is reached from the file along code edges only (calls, references, inheritance).
  let frontier = start.map((id) => ({ id, code: true }));
  let truncated = false;
  for (let hop = 1; hop <= hops && frontier.length; hop++) {
    const next: { id: string; code: boolean }[] = [];
    for (const { id, code } of frontier) {
      for (const e of incomingWithInstantiations(g, id)) {
        const codeEdge = DEPENDENCY_RELATIONS.includes(e.relation);
        if (e.relation !== 'tests' && e.relation !== 'imports' && !codeEdge) continue;
        const src = g.get(e.source);
        if (!src || src.kind === 'module' || src.path === path) continue;
        if (e.relation === 'tests' || isTestNode(graph, src)) {
          if (hop === 1) tests.add(src.path);
          else if (code && codeEdge && !testsViaDependents.has(src.path)) testsViaDependents.set(src.path, hop);
          continue;
        }
        if (seen.has(src.id)) continue;
        if (seen.size >= MAX_VISITED) {
          truncated = true;
          continue;
        }
        seen.add(src.id);
        if (!filesByHop.has(src.path)) filesByHop.set(src.path, hop);
        next.push({ id: src.id, code: code && codeEdge });
      }
    }
    frontier = next;
  }
  for (const t of tests) testsViaDependents.delete(t);
  return { filesByHop, nodes: seen.size - start.length, tests, testsViaDependents, truncated };
}
