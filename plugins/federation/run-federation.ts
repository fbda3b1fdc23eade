/**
 * One federation run, shared by `federate` and `federate_auto`: roots checked against the allowed
 * ones, each ingested by the same engine (the workspace's own graph is the served one; a sibling's is
 * stored under this workspace's store, never inside the sibling), cross edges computed and stored.
 */
import { basename, join } from 'node:path';
import { ErrorCodes, M1ndError, type HostSettings } from '../../core/index.ts';
import { CodeGraphEngine, type GraphService } from '../graph/api.ts';
import { crossEdges, type FederatedRepo } from './cross-edges.ts';
import { saveFederation, type FederationRecord } from './federation-book.ts';
import { serveFederation } from './serve-view.ts';
import { readManifest } from './manifests.ts';
import { checkRoot } from './roots.ts';
import { nestedFolders, ownShare } from './nested-roots.ts';
import { repoName } from './discovery.ts';
import { MAX_PER_KIND } from './shared-evidence.ts';
import type { RoutesCut } from './shared-edges.ts';

export interface FederationOptions {
  detect_cross_repo_edges: boolean;
  incremental: boolean;
  top_k: number;
}

/** What a call needs of its context: progress and cancellation. */
interface CallLike {
  agentId: string;
  signal: AbortSignal;
  progress(done: number, total: number, message?: string): void;
}

/** Federates the named roots; the answer lists repositories, cross-edge counts and the top edges. */
export async function runFederation(graph: GraphService, settings: Readonly<HostSettings>, wanted: readonly { name: string; path: string }[], o: FederationOptions, call: CallLike) {
  const names = new Set<string>();
  const byRoot = new Map<string, string>();
  const roots = wanted.map((r) => {
    if (names.has(r.name)) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `two repositories are named ${r.name}`, { hint: 'give every repository its own name' });
    // A repository's graph is stored under federation/<name>: `..` was the workspace's own store (its graph replaced by the other repository's), `.` the federation folder, `.view` the federated view's.
    if (r.name.startsWith('.')) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `a repository cannot be named ${r.name} (a name starting with '.')`, { hint: `name it after its folder, e.g. {"name":"${repoName(basename(r.path), 'repo')}","path":${JSON.stringify(r.path)}}` });
    names.add(r.name);
    const root = checkRoot(settings, r.path);
    // One folder under two names: every fact it holds would tie it to itself.
    const other = byRoot.get(root);
    if (other !== undefined) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `${other} and ${r.name} name the same folder ${root}`, { hint: `list each repository once: drop ${r.name}` });
    byRoot.set(root, r.name);
    return { name: r.name, root };
  });
  const workspace = checkRoot(settings, '.');
  const repos: (FederatedRepo & { own: boolean; ingest_ms: number })[] = [];
  let served = false;
  try {
    for (const [i, r] of roots.entries()) {
      call.progress(i, roots.length, `ingesting ${r.name}`);
      const started = Date.now();
      const own = r.root === workspace;
      const engine = own ? await graph.requireGraph() : new CodeGraphEngine({ root: r.root, storeDir: join(settings.storeDir, 'federation', r.name), gitMaxCommits: 0, typeCheck: false });
      repos.push({ ...r, engine, manifest: readManifest(r.root), own, ingest_ms: 0 });
      if (!own) await engine.ingest({ incremental: o.incremental, signal: call.signal });
      repos[repos.length - 1].ingest_ms = Date.now() - started;
    }
    const cut: RoutesCut = { routes: 0, requests: 0, files: [] };
    const edges = o.detect_cross_repo_edges ? await crossEdges(repos, cut) : [];
    // A repository's own nodes and edges: those under a member nested in it are that member's (nested-roots.ts).
    const summary: FederationRecord['repos'] = [];
    for (const r of repos) {
      const own = await ownShare(r.engine.graph, nestedFolders(repos, r));
      summary.push({ name: r.name, root: r.root, nodes: own.nodes, edges: own.edges, packages: r.manifest.names, ...(own.nested.length ? { nested: own.nested } : {}) });
    }
    const stored = saveFederation(graph, { federated_at: Date.now(), repos: summary, cross_edges: edges });
    // The graph verbs answer from the federation for this agent from now on (federation_view switches back).
    await serveFederation(graph, repos, edges, o.detect_cross_repo_edges);
    served = true;
    graph.federation.use(call.agentId, true);
    const counts = { depends_on: 0, imports: 0, calls: 0, inherits: 0, references: 0, http_route: 0, contract: 0, config_key: 0 };
    for (const e of edges) counts[e.relation]++;
    const rank = { calls: 0, inherits: 1, http_route: 2, imports: 3, references: 4, contract: 5, config_key: 6, depends_on: 7 };
    return {
      repos: repos.map((r, i) => ({ ...summary[i], ingest_ms: r.ingest_ms })),
      cross_edges: counts,
      edges: [...edges].sort((a, b) => rank[a.relation] - rank[b.relation]).slice(0, o.top_k),
      // A generated router's routes past the per-file cap tie nothing: said, not dropped silently.
      ...(cut.routes || cut.requests ? { routes_cut: { ...cut, hint: `only a file's first ${MAX_PER_KIND} routes and ${MAX_PER_KIND} requests are matched; the rest tie nothing (split such a file to link them)` } } : {}),
      stored,
      view: { served: true, ids: '<repo>::<id>', back: 'federation_view({"view":"workspace"}) answers from the workspace graph again' },
    };
  } finally {
    if (!served) for (const r of repos) if (!r.own) await r.engine.close();
  }
}
