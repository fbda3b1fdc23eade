/**
 * The graph a store's snapshot holds, hashed independently of its order: SHA-1 of every node's JSON
 * (keys sorted, lines sorted) and of every edge as source id, target id, relation and weight (sorted).
 * Two ingests of the same files give the same pair whatever order the parse pool delivered them in
 * (the snapshot's bytes differ between runs). For checking that a change leaves the graph as it was:
 *
 *   node --import tsx/esm bench/snapshot-graph-hash.ts <store dir>/m1nd.db [...]
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { decodeSnapshot } from '../plugins/graph/engine/graph-snapshot.ts';
import { runSteps } from '../plugins/graph/engine/steps.ts';
for (const f of process.argv.slice(2)) {
  const db = new Database(f, { readonly: true });
  const base = Number(db.prepare("SELECT value FROM meta WHERE key='snapshot_chunk_base'").pluck().get() ?? 0);
  const { chunks, bytes } = db.prepare('SELECT chunks, bytes FROM graph_snapshot WHERE id=1').get() as { chunks: number; bytes: number };
  const data = new Uint8Array(bytes); let at = 0;
  for (let s = 0; s < chunks; s++) { const c = db.prepare('SELECT data FROM graph_snapshot_chunks WHERE seq=?').pluck().get(base + s) as Buffer; data.set(c, at); at += c.length; }
  const d = runSteps(decodeSnapshot(data));
  const nodes = d.nodes.map((n) => JSON.stringify(n, Object.keys(n).sort())).sort();
  const edges: string[] = [];
  for (let e = 0; e < d.edgeSource.length; e++) edges.push(`${d.nodes[d.edgeSource[e]].id}\t${d.nodes[d.edgeTarget[e]].id}\t${d.edgeRelation[e]}\t${d.edgeWeight[e]}`);
  edges.sort();
  const hn = createHash('sha1').update(nodes.join('\n')).digest('hex'), he = createHash('sha1').update(edges.join('\n')).digest('hex');
  console.log(f, nodes.length, edges.length, hn, he);
}
