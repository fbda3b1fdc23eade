/**
 * Node fingerprints: a saved node's path, line range and a hash of its text, and how a node stands
 * now against its fingerprint (unchanged, moved, changed, missing). Files are read through the
 * engine's workspace guard, once per call.
 */
import { createHash } from 'node:crypto';
import type { CodeGraphEngine } from '../../graph/api.ts';
import type { GraphNode } from '../../graph/api.ts';

/** How a saved node stands on the current graph (`unindexed`: its file was edited since the graph read it). */
export type NodeStanding = 'unchanged' | 'moved' | 'changed' | 'missing' | 'unindexed';

function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}

/** Reads workspace files once each, remembering their hash and lines (null when unreadable). */
export class FileReader {
  private readonly cache = new Map<string, { hash: string; lines: string[] } | null>();
  constructor(private readonly engine: CodeGraphEngine) {}

  get(path: string): { hash: string; lines: string[] } | null {
    if (!this.cache.has(path)) {
      try {
        const content = this.engine.readFile(path).content;
        this.cache.set(path, { hash: sha(content), lines: content.split('\n') });
      } catch {
        this.cache.set(path, null);
      }
    }
    return this.cache.get(path)!;
  }
}

/** The fingerprint of a node now: path, lines and text hash (null for directories, 'missing' when unreadable). */
export function fingerprint(node: GraphNode, files: FileReader): { path: string; lines: [number, number] | null; hash: string | null } {
  if (node.kind === 'module') return { path: node.path, lines: null, hash: null };
  const file = files.get(node.path);
  const hash = file ? sha(file.lines.slice(node.startLine - 1, node.endLine).map((l) => l.trimEnd()).join('\n')) : 'missing';
  return { path: node.path, lines: [node.startLine, node.endLine], hash };
}

/** How a saved node stands now. */
export function standing(engine: CodeGraphEngine, saved: { id: string; lines: [number, number] | null; hash: string | null }, files: FileReader): { status: NodeStanding; lines?: [number, number] | null } {
  const node = engine.getNode(saved.id);
  if (!node) return { status: 'missing' };
  const now = fingerprint(node, files);
  if (now.hash !== saved.hash) return { status: 'changed', lines: now.lines };
  if (String(now.lines) !== String(saved.lines)) return { status: 'moved', lines: now.lines };
  return { status: 'unchanged', lines: now.lines };
}
