/** federate: several repositories ingested by the same engine into one namespaced view, with cross-repository edges from manifests, imports and calls. */
import { join } from 'node:path';
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type, type HostSettings } from '../../../core/index.ts';
import { CodeGraphEngine, type GraphService } from '../../graph/api.ts';
import { crossEdges, type FederatedRepo } from '../cross-edges.ts';
import { saveFederation } from '../federation-book.ts';
import { readManifest } from '../manifests.ts';
import { checkRoot } from '../roots.ts';

const Repo = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', maxLength: 64, description: 'Namespace of its ids: <name>::<id>' }),
  path: Type.String({ minLength: 1, description: 'Repository root (outside the workspace only under M1ND_ALLOW_ROOTS / allowRoots)' }),
});

/** federate, reading the roots the host settings allow. */
export function federateVerb(settings: Readonly<HostSettings>) {
  return defineVerb({
    name: 'federate',
    description: 'Ingest several repositories (<repo>::<id> namespaces) and link them: manifest dependencies, imports of a sibling package, calls into it.',
    input: Type.Object({
      agent_id: AgentId,
      repos: Type.Array(Repo, { minItems: 2, maxItems: 16 }),
      detect_cross_repo_edges: Type.Boolean({ default: true }),
      incremental: Type.Boolean({ default: false, description: 'Re-parse only changed files of repositories federated before' }),
      top_k: Type.Integer({ minimum: 0, maximum: 500, default: 30, description: 'Cross edges listed (calls first)' }),
    }),
    tiers: ['full'],
    effect: 'write',
    handler: async (args, call) => {
      const graph = call.service<GraphService>('graph');
      const names = new Set<string>();
      const roots = args.repos.map((r) => {
        if (names.has(r.name)) throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `two repositories are named ${r.name}`, { hint: 'give every repository its own name' });
        names.add(r.name);
        return { name: r.name, root: checkRoot(settings, r.path) };
      });
      const workspace = checkRoot(settings, '.');
      const repos: (FederatedRepo & { own: boolean; ingest_ms: number })[] = [];
      try {
        for (const [i, r] of roots.entries()) {
          call.progress(i, roots.length, `ingesting ${r.name}`);
          const started = Date.now();
          const own = r.root === workspace;
          // The workspace's own graph is the served one; each sibling's is stored under this
          // workspace's store, never inside the sibling.
          const engine = own ? await graph.requireGraph() : new CodeGraphEngine({ root: r.root, storeDir: join(settings.storeDir, 'federation', r.name), gitMaxCommits: 0, typeCheck: false });
          repos.push({ ...r, engine, manifest: readManifest(r.root), own, ingest_ms: 0 });
          if (!own) await engine.ingest({ incremental: args.incremental, signal: call.signal });
          repos[repos.length - 1].ingest_ms = Date.now() - started;
        }
        const edges = args.detect_cross_repo_edges ? await crossEdges(repos) : [];
        const summary = repos.map((r) => ({ name: r.name, root: r.root, nodes: r.engine.graph.nodeCount, edges: r.engine.graph.edgeCount, packages: r.manifest.names }));
        const stored = saveFederation(graph, { federated_at: Date.now(), repos: summary, cross_edges: edges });
        const counts = { depends_on: 0, imports: 0, calls: 0 };
        for (const e of edges) counts[e.relation]++;
        const rank = { calls: 0, imports: 1, depends_on: 2 };
        return {
          repos: repos.map((r, i) => ({ ...summary[i], ingest_ms: r.ingest_ms })),
          cross_edges: counts,
          edges: [...edges].sort((a, b) => rank[a.relation] - rank[b.relation]).slice(0, args.top_k),
          stored,
        };
      } finally {
        for (const r of repos) if (!r.own) await r.engine.close();
      }
    },
  });
}
