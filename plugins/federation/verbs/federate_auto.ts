/** federate_auto: discover the repositories the workspace is tied to, and federate with the allowed ones when asked. */
import { basename } from 'node:path';
import { AgentId, defineVerb, Type, type HostSettings } from '../../../core/index.ts';
import type { GraphService } from '../../graph/api.ts';
import { discoverRepos, repoName } from '../discovery.ts';
import { runFederation } from '../run-federation.ts';

/** federate_auto, reading the roots the host settings allow. */
export function federateAutoVerb(settings: Readonly<HostSettings>) {
  return defineVerb({
    name: 'federate_auto',
    description: 'Find repositories tied to the workspace (workspace members, outside imports and manifest paths, sibling packages it depends on); execute: federate with the allowed ones.',
    input: Type.Object({
      agent_id: AgentId,
      current_repo_name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', maxLength: 64, workspacePath: false, description: "The workspace's namespace (default: its folder name)" })),
      max_repos: Type.Integer({ minimum: 1, maximum: 15, default: 8 }),
      detect_cross_repo_edges: Type.Boolean({ default: true }),
      execute: Type.Boolean({ default: false, description: 'Federate with the allowed candidates now' }),
      top_k: Type.Integer({ minimum: 0, maximum: 500, default: 30, description: 'Cross edges listed when executing' }),
    }),
    output: Type.Object({
      hint: Type.Optional(Type.String()),
      current: Type.String(),
      candidates: Type.Array(Type.Object({})),
      federate: Type.Optional(Type.Union([Type.Object({ repos: Type.Array(Type.Unknown()) }), Type.Null()])),
      executed: Type.Boolean(),
      repos: Type.Optional(Type.Array(Type.Object({}))),
      cross_edges: Type.Optional(Type.Object({ depends_on: Type.Number(), imports: Type.Number(), calls: Type.Number(), inherits: Type.Number(), references: Type.Number(), http_route: Type.Number(), contract: Type.Number(), config_key: Type.Number() })),
      edges: Type.Optional(Type.Array(Type.Object({}))),
      stored: Type.Optional(Type.Boolean()),
    }),
    tiers: ['full'],
    effect: (args) => (args.execute ? 'write' : 'read'),
    next: 'federate',
    handler: async (args, call) => {
      const graph = call.service<GraphService>('graph');
      await graph.requireGraph();
      const current = args.current_repo_name ?? repoName(basename(settings.workspaceRoot), 'workspace');
      const candidates = await discoverRepos(graph, settings, args.max_repos, [current]);
      const usable = candidates.filter((c) => c.allowed && c.name !== current);
      const refused = candidates.filter((c) => !c.allowed);
      const hint = refused.length
        ? `outside the allowed roots: add ${refused.map((c) => c.root).join(', ')} to M1ND_ALLOW_ROOTS or allowRoots in m1nd.config.ts to federate them`
        : undefined;
      const repos = [{ name: current, path: '.' }, ...usable.map((c) => ({ name: c.name, path: c.root }))];
      if (!args.execute || usable.length === 0) {
        return { current, candidates, federate: usable.length ? { repos } : null, executed: false, ...(hint ? { hint } : {}) };
      }
      const result = await runFederation(graph, settings, repos, { detect_cross_repo_edges: args.detect_cross_repo_edges, incremental: true, top_k: args.top_k }, call);
      return { current, candidates, executed: true, ...result, ...(hint ? { hint } : {}) };
    },
  });
}
