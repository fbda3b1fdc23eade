/** Test helpers for call-resolution fixtures: ingest a small repository, read direct callers through `impact`. */
import { writeFixtureRepo } from '../../../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../../../helpers/mcp.ts';

const SOURCE = /\.(py|go|java|rs|ts|tsx|[cm]?js)$/;

/** Writes the files into a fresh workspace, starts a host and ingests it; fails unless every source file parsed. */
export async function ingestedRepo(files: Record<string, string>, graph: { typeCheck?: boolean } = {}): Promise<Harness> {
  const ws = writeFixtureRepo(tempDir('m1nd-resolution-'), files);
  const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, ...graph } } } });
  const { json } = await h.call('ingest', { agent_id: 'setup', path: ws });
  const sources = Object.keys(files).filter((f) => SOURCE.test(f)).length;
  if (json.files?.parsed !== sources) {
    await h.close();
    throw new Error(`fixture ingest failed: ${JSON.stringify(json).slice(0, 400)}`);
  }
  return h;
}

/** Ids of the direct callers of `nodeId` (sorted), as `impact` reverse at depth 1 reports them. */
export async function callersOf(h: Harness, nodeId: string): Promise<string[]> {
  const { json } = await h.call('impact', { agent_id: 't', node_id: nodeId, direction: 'reverse', max_depth: 1, detail: 'full' });
  if (!json.node || json.node.id !== nodeId) throw new Error(`no node ${nodeId}: ${JSON.stringify(json).slice(0, 300)}`);
  // impact joins the relations of one dependent with '+' (`calls+tests`).
  return json.direct
    .filter((e: { relation: string }) => e.relation.split('+').includes('calls'))
    .map((e: { id: string }) => e.id)
    .sort();
}
