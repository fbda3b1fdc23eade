/** `m1nd://trails/{trail_id}`: saved investigations as MCP resources (trails are shared by every agent). */
import type { ResourceDefinition } from '../../../core/index.ts';
import type { GraphService } from '../../graph/service.ts';
import { allTrails, NAMESPACE, type Trail } from './trail-book.ts';

/** The trails resource, reading through the graph service's store. */
export function trailResource(graph: () => GraphService): ResourceDefinition {
  const get = (id: string): Trail | undefined => graph().engine.memory.get<Trail>(NAMESPACE, id)?.value;
  return {
    uri: 'm1nd://trails/{trail_id}',
    name: 'trail',
    title: 'Saved trail',
    description: 'A saved investigation: hypotheses, conclusions, open questions, visited nodes',
    mimeType: 'application/json',
    list: () =>
      allTrails(graph())
        .sort((a, b) => b.updated_at - a.updated_at)
        .map((t) => ({ uri: `m1nd://trails/${encodeURIComponent(t.trail_id)}`, name: t.trail_id, title: t.label, description: `${t.status} by ${t.agent_id}, ${t.visited.length} nodes${t.summary ? `: ${t.summary.slice(0, 120)}` : ''}`, mimeType: 'application/json' })),
    read: ({ trail_id }) => {
      const trail = get(trail_id);
      return trail && { text: JSON.stringify(trail, null, 2) };
    },
    complete: { trail_id: (prefix) => allTrails(graph()).map((t) => t.trail_id).filter((id) => id.startsWith(prefix)).sort() },
  };
}
