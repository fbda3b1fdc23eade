/**
 * `m1nd://trails/{trail_id}`: saved team trails as MCP resources. A resource request names no agent,
 * so private trails are never listed or read here (trail_resume serves them to their author).
 */
import type { ResourceDefinition } from '../../../core/index.ts';
import type { StateService } from '../../state/api.ts';
import { allTrails, NAMESPACE, visibleTo, type Trail } from './trail-book.ts';

/** No agent: only team trails are visible. */
const NOBODY = '';

/** The trails resource, reading the team store (private trails are never there). */
export function trailResource(state: () => StateService): ResourceDefinition {
  const get = async (id: string): Promise<Trail | undefined> => {
    const trail = (await state().team.get<Trail>(NAMESPACE, id))?.value;
    return trail && visibleTo(trail, NOBODY) ? trail : undefined;
  };
  const team = (): Promise<Trail[]> => allTrails(state(), NOBODY);
  return {
    uri: 'm1nd://trails/{trail_id}',
    name: 'trail',
    title: 'Saved trail',
    description: 'A saved investigation: hypotheses, conclusions, open questions, visited nodes',
    mimeType: 'application/json',
    list: async () =>
      (await team())
        .sort((a, b) => b.updated_at - a.updated_at)
        .map((t) => ({ uri: `m1nd://trails/${encodeURIComponent(t.trail_id)}`, name: t.trail_id, title: t.label, description: `${t.status} by ${t.agent_id}, ${t.visited.length} nodes${t.summary ? `: ${t.summary.slice(0, 120)}` : ''}`, mimeType: 'application/json' })),
    read: async ({ trail_id }) => {
      const trail = await get(trail_id);
      return trail && { text: JSON.stringify(trail, null, 2) };
    },
    complete: { trail_id: async (prefix) => (await team()).map((t) => t.trail_id).filter((id) => id.startsWith(prefix)).sort() },
  };
}
