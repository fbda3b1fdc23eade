/**
 * The directory tree of the graph: one module node per directory holding files (and each of its
 * ancestors), each contained by its parent. The builder owns these nodes and their containment
 * edges; they are added when a file appears and pruned bottom-up when a directory empties.
 */
import { posix } from 'node:path';
import { RELATION_CODE as REL, STRUCTURAL_CONTAINS_WEIGHT, moduleNodeId, type CodeGraph, type GraphNode } from './graph.ts';
import type { FileIndex } from './file-index.ts';
import { dirOf } from './resolve.ts';

/** Module nodes by directory, with the containment edge from each one's parent (-1 for the root). */
export class ModuleTree {
  private readonly modules = new Map<string, { node: number; edge: number }>();

  /** Node index of a directory's module node, or -1. */
  nodeOf(dir: string): number {
    return this.modules.get(dir)?.node ?? -1;
  }

  /** Re-points containment edge ids after the graph compacted its edges. */
  remapEdges(remap: ArrayLike<number>): void {
    for (const m of this.modules.values()) m.edge = m.edge >= 0 ? remap[m.edge] : -1;
  }

  /** Adds directory nodes for added files and prunes directories that removed files left empty. */
  update(graph: CodeGraph, paths: FileIndex, pathsChanged: readonly string[], hasFile: (path: string) => boolean): void {
    const needed = (dir: string): boolean => {
      if (paths.hasDir(dir)) return true;
      const prefix = dir === '' ? '' : `${dir}/`;
      for (const d of this.modules.keys()) if (d !== dir && d.startsWith(prefix) && paths.hasDir(d)) return true;
      return false;
    };
    const ensure = (dir: string): number => {
      const have = this.modules.get(dir);
      if (have) return have.node;
      const node: GraphNode = {
        id: moduleNodeId(dir),
        kind: 'module',
        label: dir === '' ? '.' : posix.basename(dir),
        path: dir === '' ? '.' : dir,
        startLine: 0,
        endLine: 0,
        language: null,
      };
      const idx = graph.upsertNode(node);
      const entry = { node: idx, edge: -1 };
      this.modules.set(dir, entry);
      if (dir !== '') entry.edge = graph.addEdge(ensure(dirOf(dir)), idx, REL.contains, STRUCTURAL_CONTAINS_WEIGHT);
      return idx;
    };
    for (const path of pathsChanged) {
      let dir = dirOf(path);
      if (hasFile(path)) {
        ensure(dir);
        continue;
      }
      // Removed: prune empty directories bottom-up.
      for (;;) {
        const m = this.modules.get(dir);
        if (!m || needed(dir)) break;
        graph.removeNode(m.node);
        this.modules.delete(dir);
        if (dir === '') break;
        dir = dirOf(dir);
      }
    }
  }
}
