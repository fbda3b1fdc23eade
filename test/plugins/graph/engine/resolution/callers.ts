/** Test helper: direct callers of a node as `impact` reverse at depth 1 reports them, through the MCP client. */
import type { Harness } from '../../../../helpers/mcp.ts';

/** Ids of the direct callers of `nodeId` (sorted), each with the signal its call edge carries. */
export async function callersOf(h: Harness, nodeId: string): Promise<string[]> {
  const { json } = await h.call('impact', { agent_id: 't', node_id: nodeId, direction: 'reverse', max_depth: 1, top_k: 200 });
  if (!json.node || json.node.id !== nodeId) throw new Error(`no node ${nodeId}: ${JSON.stringify(json).slice(0, 300)}`);
  return json.blast_radius
    .filter((e: { relation: string }) => e.relation === '<-calls-')
    .map((e: { id: string }) => e.id)
    .sort();
}
