/**
 * A lock's baseline: a keyed snapshot of its region — every node with its kind, name, line range
 * and a hash of its own text (blank lines and trailing spaces ignored), every edge between region nodes with its weight, and a content hash
 * per file — and the diff of two snapshots. A container's hash leaves out the text of its children
 * that are in the region too, so an edit inside one function shows that function changed, not
 * also its file and class.
 */
import { createHash } from 'node:crypto';
import { RELATIONS, slicePace, type CodeGraphEngine, type GraphNode } from '../graph/api.ts';

/** Main-thread time a capture takes before it gives the event loop back (a region reads hundreds of files). */
const SLICE_MS = 8;
/** Captures started again when the graph moves to a new generation mid-way (then the last one is finished as is). */
const RESTARTS = 3;

/** One node as captured. */
export interface NodeFact {
  id: string;
  kind: string;
  label: string;
  path: string;
  lines: [number, number] | null;
  /** Hash of the node's own text (children in the region left out); null for directories. */
  hash: string | null;
}

/** A region as captured at one graph generation. */
export interface Snapshot {
  generation: number;
  nodes: Record<string, NodeFact>;
  /** `source\trelation\ttarget` → weight, for edges with both ends in the region. */
  edges: Record<string, number>;
  /** File path → content hash ('missing' when unreadable). */
  files: Record<string, string>;
  truncated: boolean;
}

function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}

/**
 * Captures a snapshot of the given nodes on the current graph, reading their files once each, in
 * slices that leave the event loop free. A graph that moves to a new generation meanwhile (a
 * watcher's re-ingest) starts the capture again, so one snapshot is of one generation.
 */
export async function snapshot(engine: CodeGraphEngine, ids: readonly string[], truncated = false, pace: () => Promise<void> = slicePace(SLICE_MS)): Promise<Snapshot> {
  for (let attempt = 0; ; attempt++) {
    const taken = await capture(engine, ids, truncated, pace, attempt < RESTARTS);
    if (taken) return taken;
  }
}

/** One capture; null when the graph moved meanwhile and `restartable`. */
async function capture(engine: CodeGraphEngine, ids: readonly string[], truncated: boolean, pace: () => Promise<void>, restartable: boolean): Promise<Snapshot | null> {
  const g = engine.graph;
  const generation = engine.generation;
  const inRegion = new Set(ids);
  const texts = new Map<string, string[] | null>();
  const files: Record<string, string> = {};
  const linesOf = (path: string): string[] | null => {
    if (!texts.has(path)) {
      let lines: string[] | null = null;
      try {
        const content = engine.readFile(path).content;
        files[path] = sha(content);
        lines = content.split('\n');
      } catch {
        files[path] = 'missing';
      }
      texts.set(path, lines);
    }
    return texts.get(path)!;
  };
  const nodes: Record<string, NodeFact> = {};
  const edges: Record<string, number> = {};
  for (const id of ids) {
    await pace();
    if (restartable && (engine.generation !== generation || engine.graph !== g)) return null;
    const n = g.get(id);
    if (!n) continue;
    const i = g.indexOf(id);
    const children: GraphNode[] = [];
    g.forEachOut(i, (t, w, code) => {
      const other = g.node(t)!;
      if (!inRegion.has(other.id)) return;
      const relation = RELATIONS[code];
      edges[`${id}\t${relation}\t${other.id}`] = Math.round(w * 1000) / 1000;
      if (relation === 'contains' && other.path === n.path && other.kind !== 'file') children.push(other);
    });
    const hasLines = n.kind !== 'module';
    nodes[id] = {
      id,
      kind: n.kind,
      label: n.label,
      path: n.path,
      lines: hasLines ? [n.startLine, n.endLine] : null,
      hash: hasLines ? ownTextHash(linesOf(n.path), n, children) : null,
    };
  }
  return { generation, nodes, edges, files, truncated };
}

function ownTextHash(lines: string[] | null, n: GraphNode, children: GraphNode[]): string {
  if (!lines) return 'missing';
  const last = Math.min(n.endLine, lines.length);
  // Lines of children in the region (marked once each, not tested per line against every child).
  const covered = new Uint8Array(Math.max(0, last - n.startLine + 1));
  for (const c of children) for (let k = Math.max(c.startLine, n.startLine); k <= Math.min(c.endLine, last); k++) covered[k - n.startLine] = 1;
  const out: string[] = [];
  for (let k = n.startLine; k <= last; k++) {
    if (covered[k - n.startLine]) continue;
    // Blank lines and trailing spaces carry no meaning: a blank line added between two functions is no change to the file.
    const line = lines[k - 1].trimEnd();
    if (line !== '') out.push(line);
  }
  return sha(out.join('\n'));
}

/** What changed between a baseline and the current capture of the same region. */
export interface RegionDiff {
  nodes: {
    added: NodeFact[];
    removed: (NodeFact & { reason: 'deleted' | 'left_region' })[];
    changed: (Omit<NodeFact, 'hash'> & { was_lines: [number, number] | null; what: string[] })[];
    /** Same text, new lines (something above it grew or shrank). */
    moved: { id: string; lines: [number, number] | null; was_lines: [number, number] | null }[];
  };
  edges: {
    added: { source: string; relation: string; target: string; weight: number }[];
    removed: { source: string; relation: string; target: string; weight: number }[];
    reweighted: { source: string; relation: string; target: string; weight: number; was: number }[];
  };
  /** Files of added, changed and deleted nodes (not of nodes that only left the region); `content` compares the whole file (entered/left_region: no node of it was in the region before/now). */
  files: { path: string; content: 'edited' | 'deleted' | 'unchanged' | 'entered_region' | 'left_region'; changed_nodes: string[]; lines: [number, number][] }[];
  /** Files edited on disk while the graph stayed at the baseline's generation: edits not ingested yet. */
  unindexed_edits: string[];
  unchanged_nodes: number;
  changed: boolean;
}

function edgeOf(key: string, weight: number) {
  const [source, relation, target] = key.split('\t');
  return { source, relation, target, weight };
}

/** Entries compared between two looks at the pace. */
const DIFF_CHECK_EVERY = 256;

/**
 * Diffs two snapshots of one region; `stillInGraph` tells a deleted node from one that left the
 * region. Paced (`pace` is awaited every few hundred entries): a region holds thousands of edges.
 */
export async function diffSnapshots(before: Snapshot, after: Snapshot, stillInGraph: (id: string) => boolean, pace: () => Promise<void> = slicePace(SLICE_MS)): Promise<RegionDiff> {
  let seen = 0;
  const d: RegionDiff = {
    nodes: { added: [], removed: [], changed: [], moved: [] },
    edges: { added: [], removed: [], reweighted: [] },
    files: [],
    unindexed_edits: [],
    unchanged_nodes: 0,
    changed: false,
  };
  // On the baseline's own generation the graph has re-read nothing since: a file whose text differs
  // was edited on disk and not ingested, and its nodes' line ranges are the old ones. Hashing the new
  // text over them says nothing (two lines added at the top "change" every function below), so
  // those files are reported as unindexed edits, not as changed nodes.
  const sameGraph = after.generation === before.generation;
  const unread = (path: string) => sameGraph && before.files[path] !== undefined && after.files[path] !== before.files[path];
  for (const [id, now] of Object.entries(after.nodes)) {
    if (++seen % DIFF_CHECK_EVERY === 0) await pace();
    const was = before.nodes[id];
    if (!was) {
      d.nodes.added.push(now);
      continue;
    }
    const what: string[] = [];
    if (was.hash !== now.hash && !unread(now.path)) what.push('content');
    if (was.kind !== now.kind || was.label !== now.label) what.push('kind_or_name');
    const { hash: _hash, ...shown } = now;
    if (what.length) d.nodes.changed.push({ ...shown, was_lines: was.lines, what });
    else if (String(was.lines) !== String(now.lines)) d.nodes.moved.push({ id, lines: now.lines, was_lines: was.lines });
    else d.unchanged_nodes++;
  }
  for (const [id, was] of Object.entries(before.nodes)) {
    if (++seen % DIFF_CHECK_EVERY === 0) await pace();
    if (!after.nodes[id]) d.nodes.removed.push({ ...was, reason: stillInGraph(id) ? 'left_region' : 'deleted' });
  }
  for (const [key, w] of Object.entries(after.edges)) {
    if (++seen % DIFF_CHECK_EVERY === 0) await pace();
    const was = before.edges[key];
    if (was === undefined) d.edges.added.push(edgeOf(key, w));
    else if (Math.abs(was - w) > 1e-3) d.edges.reweighted.push({ ...edgeOf(key, w), was });
  }
  for (const [key, w] of Object.entries(before.edges)) {
    if (++seen % DIFF_CHECK_EVERY === 0) await pace();
    if (after.edges[key] === undefined) d.edges.removed.push(edgeOf(key, w));
  }

  const touched = new Map<string, { nodes: string[]; lines: [number, number][] }>();
  const touch = (n: { id: string; path: string; lines: [number, number] | null; kind: string }) => {
    if (n.kind === 'module') return;
    let t = touched.get(n.path);
    if (!t) touched.set(n.path, (t = { nodes: [], lines: [] }));
    t.nodes.push(n.id);
    if (n.lines) t.lines.push(n.lines);
  };
  // A node that only left the region (its text untouched) is no change of its file.
  for (const n of [...d.nodes.added, ...d.nodes.changed, ...d.nodes.removed.filter((r) => r.reason === 'deleted')]) touch(n);
  const paths = new Set([...Object.keys(before.files), ...Object.keys(after.files)]);
  for (const path of [...paths].sort()) {
    const a = before.files[path];
    const b = after.files[path];
    const content: RegionDiff['files'][number]['content'] =
      a === undefined ? 'entered_region' : b === undefined ? (stillInGraph(`file:${path}`) ? 'left_region' : 'deleted') : a === b ? 'unchanged' : b === 'missing' ? 'deleted' : 'edited';
    const t = touched.get(path);
    if (t) d.files.push({ path, content, changed_nodes: t.nodes, lines: t.lines });
    else if (content === 'edited' && after.generation === before.generation) d.unindexed_edits.push(path);
  }
  d.changed =
    d.nodes.added.length + d.nodes.removed.length + d.nodes.changed.length + d.edges.added.length + d.edges.removed.length + d.edges.reweighted.length > 0;
  return d;
}

/** Counts of a diff (for watch events and rebase reports). */
export function diffCounts(d: RegionDiff) {
  return {
    nodes_added: d.nodes.added.length,
    nodes_removed: d.nodes.removed.length,
    nodes_changed: d.nodes.changed.length,
    edges_added: d.edges.added.length,
    edges_removed: d.edges.removed.length,
    edges_reweighted: d.edges.reweighted.length,
  };
}
