/** document_provider_health: which document converters this server can use, and how to add the missing ones. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { conversionWorkers } from '../convert/runner.ts';
import { CONVERTERS, probePackage } from '../converters.ts';
import { documentNodes } from '../graph-nodes.ts';
import type { GraphService } from '../../graph/api.ts';

export const documentProviderHealthVerb = defineVerb({
  name: 'document_provider_health',
  description: 'Which document converters (Markdown, reStructuredText, text, PDF, HTML, DOCX) are available, and the install command for missing ones.',
  input: Type.Object({ agent_id: AgentId }),
  output: Type.Object({ providers: Type.Array(Type.Object({})), available: Type.Number(), missing: Type.Array(Type.String()), network: Type.String(), workers: Type.Object({}), graph: Type.Object({}) }),
  tiers: ['full'],
  effect: 'read',
  next: 'document_resolve',
  handler: async (_args, call) => {
    const providers = CONVERTERS.map((c) => {
      if (!c.package) return { name: c.name, extensions: c.extensions, available: true, builtin: true };
      const probe = probePackage(c.package);
      return {
        name: c.name,
        extensions: c.extensions,
        available: probe.installed,
        builtin: false,
        package: c.package,
        ...(probe.version ? { version: probe.version } : {}),
        ...(probe.installed ? {} : { install: `npm install ${c.package}` }),
      };
    });
    const missing = providers.filter((p) => !p.available).map((p) => p.name);
    // Conversion worker threads of this process: running now, started, conversions, and how many of those reused a warm worker.
    return { providers, available: providers.length - missing.length, missing, network: 'never: converters run locally on workspace files', workers: conversionWorkers(), graph: graphState(call.service<GraphService>('graph')) };
  },
});

/**
 * Converted documents in the graph, how many times one was rewritten there (its content or bound
 * targets changed), and how many times one's bindings were resolved again (it named what a change touched).
 */
function graphState(graph: GraphService): { documents: number; relinked: number; resolved: number } {
  const nodes = documentNodes(graph);
  return { documents: nodes.size, relinked: nodes.relinked, resolved: nodes.resolved };
}
