/** federation_view: which graph this agent's read verbs (seek, impact, why, activate, …) answer from — the federation or the workspace. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, StringEnum, Type, type HostSettings } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { restoreFederation } from '../serve-view.ts';

/** federation_view, reopening a stored federation from the roots the host settings allow. */
export function federationViewVerb(settings: Readonly<HostSettings>) {
  return defineVerb({
    name: 'federation_view',
    description: "Switch this agent's graph verbs between the federated graph (<repo>::<id>, cross-repo edges; reopened from the store after a restart) and the workspace graph.",
    input: Type.Object({
      agent_id: AgentId,
      view: StringEnum(['federated', 'workspace'] as const, { description: 'federated: answer across the federated repositories' }),
    }),
    // view 'workspace' answers { view } alone; the rest describe the federated graph.
    output: Type.Object({
      view: Type.String(),
      restored: Type.Optional(Type.Boolean()),
      repos: Type.Optional(
        Type.Array(
          Type.Object({
            name: Type.String(),
            nodes: Type.Number({ description: 'Its own nodes in the view (none under a member nested in it)' }),
            workspace: Type.Boolean(),
            nested: Type.Optional(
              Type.Array(Type.Object({ repo: Type.String(), folder: Type.String(), files: Type.Number(), nodes: Type.Number(), edges: Type.Number() }), {
                description: "Folders that are nested members' roots: their files are those members' alone; edges: this repository's edges into them, tied to the nested member's nodes",
              }),
            ),
          }),
        ),
      ),
      nodes: Type.Optional(Type.Number()),
      edges: Type.Optional(Type.Number()),
      cross_edges: Type.Optional(Type.Record(Type.String(), Type.Number(), { description: "references: federate's references, http_route, contract and config_key" })),
      ids: Type.Optional(Type.String()),
    }),
    tiers: ['full'],
    effect: 'session',
    handler: async (args, call) => {
      const graph = call.service<GraphService>('graph');
      let restored = false;
      if (args.view === 'federated' && !graph.federation.current) {
        restored = await restoreFederation(graph, settings);
        if (!restored) {
          throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, 'no federation is stored for this workspace', { hint: 'call federate({"agent_id":"…","repos":[{"name":"app","path":"."},{"name":"lib","path":"../lib"}]}) first' });
        }
      }
      graph.federation.use(call.agentId, args.view === 'federated');
      const view = graph.federation.current;
      if (args.view === 'workspace' || !view) return { view: 'workspace' };
      await view.ensureFresh();
      return {
        view: 'federated',
        restored,
        repos: view.memberCounts().map((c, i) => ({ name: c.name, nodes: c.nodes, workspace: view.members[i].own, ...(c.nested.length ? { nested: c.nested } : {}) })),
        nodes: view.graph.nodeCount,
        edges: view.graph.edgeCount,
        cross_edges: view.links,
        ids: '<repo>::<id>; paths <repo>::<path>',
      };
    },
  });
}
