/** external_references: references in workspace files to paths outside the workspace root, grouped by the outside folder. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { pathScope, type GraphService } from '../../graph/api.ts';
import { outsideReferences } from '../outside-references.ts';

/** References gathered per call at most (the answer lists top_k of them). */
const MAX_REFERENCES = 5000;

export const externalReferencesVerb = defineVerb({
  name: 'external_references',
  description: 'References in ingested files and manifests (imports, doc links, file:/path deps, tsconfig extends, go.mod replace) to paths outside the workspace root.',
  input: Type.Object({
    agent_id: AgentId,
    scope: Type.Optional(Type.String({ minLength: 1, description: 'Only files under this workspace folder' })),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'References listed' }),
  }),
  output: Type.Object({ total: Type.Number(), roots: Type.Array(Type.Object({})), references: Type.Array(Type.Object({})), truncated: Type.Boolean(), note: Type.String() }),
  tiers: ['full'],
  effect: 'read',
  handler: async (args, call) => {
    const graph = call.service<GraphService>('graph');
    const scope = pathScope(graph.engine, args.scope);
    const refs = await outsideReferences(graph, MAX_REFERENCES, scope.has);
    // The outside folder a reference lands in: the path up to its first segment below the `..` climb; an absolute path's first folder (`/etc`).
    const rootOf = (target: string) => {
      if (target.startsWith('/')) return `/${target.split('/')[1]}`;
      const parts = target.split('/');
      const up = parts.findIndex((p) => p !== '..');
      return up < 0 ? parts.join('/') : parts.slice(0, up + 1).join('/');
    };
    const roots = new Map<string, { root: string; references: number; kinds: Set<string> }>();
    for (const r of refs) {
      const key = rootOf(r.target);
      const entry = roots.get(key) ?? { root: key, references: 0, kinds: new Set<string>() };
      entry.references++;
      entry.kinds.add(r.kind);
      roots.set(key, entry);
    }
    return {
      total: refs.length,
      roots: [...roots.values()].sort((a, b) => b.references - a.references).map((r) => ({ root: r.root, references: r.references, kinds: [...r.kinds].sort() })),
      references: refs.slice(0, args.top_k),
      truncated: refs.length > args.top_k || refs.length >= MAX_REFERENCES,
      note: 'outside paths are reported, never read',
    };
  },
});
