/**
 * Serving a federation as the graph verbs' view (plugins/graph federated view): the member engines
 * stay open, and the cross-repository edges are recomputed whenever a member's graph changes (the
 * edges a `federate` call just computed are reused while nothing changed). After a restart,
 * `restoreFederation` reopens the stored member graphs (no parsing) from the stored record,
 * checking every root against the allowed ones again.
 */
import { join } from 'node:path';
import type { HostSettings } from '../../core/index.ts';
import { CodeGraphEngine, type FederationLink, type FederationMember, type GraphService } from '../graph/api.ts';
import { crossEdges, type CrossEdge } from './cross-edges.ts';
import { loadFederation } from './federation-book.ts';
import { readManifest } from './manifests.ts';
import { checkRoot } from './roots.ts';
import { nestedFolders } from './nested-roots.ts';

export interface ServedRepo {
  name: string;
  root: string;
  engine: CodeGraphEngine;
  own: boolean;
}

const versionKey = (repos: readonly { engine: CodeGraphEngine }[]) => repos.map((r) => `${r.engine.generation}:${r.engine.graph.version}`).join('|');

/** Serves the repositories as the federated view (engines handed over: the view closes the siblings). */
export async function serveFederation(graph: GraphService, repos: readonly ServedRepo[], computed?: CrossEdge[], detect = true): Promise<void> {
  const roots = new Map(repos.map((r) => [r.name, r.root]));
  let cache = computed ? { key: versionKey(repos), edges: computed } : null;
  await graph.federation.define({
    // A member's files under another member's root are that member's alone (nested-roots.ts).
    members: repos.map((r): FederationMember => ({ name: r.name, engine: r.engine, own: r.own, nested: nestedFolders(repos, r) })),
    async link(members) {
      if (!detect) return [];
      const key = versionKey(members);
      if (cache?.key !== key) cache = { key, edges: await crossEdges(members.map((m) => ({ name: m.name, root: roots.get(m.name)!, engine: m.engine, manifest: readManifest(roots.get(m.name)!) }))) };
      // Evidence shared without a dependency (a route, a contract, a configuration key) is a reference in the view.
      const kept = new Set(['depends_on', 'imports', 'calls', 'inherits', 'references']);
      return cache.edges.map((e): FederationLink => ({ source: e.source, target: e.target, relation: kept.has(e.relation) ? (e.relation as FederationLink['relation']) : 'references' }));
    },
  });
}

/** Reopens the stored federation in this process; false when none is stored. */
export async function restoreFederation(graph: GraphService, settings: Readonly<HostSettings>): Promise<boolean> {
  const record = loadFederation(graph);
  if (!record) return false;
  const workspace = checkRoot(settings, '.');
  const repos: ServedRepo[] = [];
  try {
    for (const r of record.repos) {
      const root = checkRoot(settings, r.root);
      const own = root === workspace;
      const engine = own ? await graph.requireGraph() : new CodeGraphEngine({ root, storeDir: join(settings.storeDir, 'federation', r.name), gitMaxCommits: 0, typeCheck: false, readOnly: !graph.writable });
      repos.push({ name: r.name, root, engine, own });
      if (!own) await engine.open();
    }
  } catch (error) {
    for (const r of repos) if (!r.own) await r.engine.close();
    throw error;
  }
  await serveFederation(graph, repos);
  return true;
}
