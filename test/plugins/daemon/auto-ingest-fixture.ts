/** The auto-ingest tests' workspace (the fixture repository with docs/guide.md) and server (no graph watcher, no checker). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

export function workspace(): string {
  const ws = writeFixtureRepo(tempDir('m1nd-auto-ingest-'));
  fs.mkdirSync(path.join(ws, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'docs/guide.md'), '# Guide\n\nThe cart uses `add`.\n');
  return ws;
}

export async function serve(ws: string, env: Record<string, string> = {}): Promise<Harness> {
  return connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: path.join(ws, '..', `${path.basename(ws)}-cache`), ...env }, config: { options: { graph: { watch: false, typeCheck: false } } } });
}

/** The JSON of a call that must succeed. */
export const ok = (r: { result: { isError?: boolean }; json: unknown }) => {
  assert.notEqual(r.result.isError, true, JSON.stringify(r.json));
  return r.json as any;
};
