/** federate: several repositories ingested by the same engine into one namespaced view, with cross-repository edges from manifests, imports and calls. */
import { AgentId, defineVerb, Type, type HostSettings } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { runFederation } from '../run-federation.ts';

const Repo = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', maxLength: 64, examples: ['lib', 'app'], description: 'Namespace of its ids: <name>::<id>' }),
  path: Type.String({ minLength: 1, description: 'Repository root (outside the workspace only under M1ND_ALLOW_ROOTS / allowRoots)' }),
});

/** federate, reading the roots the host settings allow. */
export function federateVerb(settings: Readonly<HostSettings>) {
  return defineVerb({
    name: 'federate',
    description: 'Ingest several repositories (<repo>::<id> namespaces) and link them: manifest dependencies, imports and calls of a sibling package, HTTP routes, contracts and config keys they share.',
    input: Type.Object({
      agent_id: AgentId,
      repos: Type.Array(Repo, { minItems: 2, maxItems: 16 }),
      detect_cross_repo_edges: Type.Boolean({ default: true }),
      incremental: Type.Boolean({ default: false, description: 'Re-parse only changed files of repositories federated before' }),
      top_k: Type.Integer({ minimum: 0, maximum: 500, default: 30, description: 'Cross edges listed (calls first)' }),
    }),
    output: Type.Object({
      repos: Type.Array(Type.Object({}), {
        description: "Each repository's own nodes and edges; nested: per member whose root is inside it, the files and nodes of its graph under that folder (counted for that member)",
      }),
      cross_edges: Type.Object({ depends_on: Type.Number(), imports: Type.Number(), calls: Type.Number(), inherits: Type.Number(), references: Type.Number(), http_route: Type.Number(), contract: Type.Number(), config_key: Type.Number() }),
      edges: Type.Array(Type.Object({})),
      routes_cut: Type.Optional(Type.Object({ routes: Type.Number(), requests: Type.Number(), files: Type.Array(Type.String()), hint: Type.String() }, { description: 'Routes and requests past the per-file cap, left out' })),
      stored: Type.Boolean(),
    }),
    tiers: ['full'],
    effect: 'write',
    handler: async (args, call) => {
      const graph = call.service<GraphService>('graph');
      return runFederation(graph, settings, args.repos, args, call);
    },
  });
}
