/**
 * `ingest WS`: ingests the workspace (60 Python files: in the parse workers) and exits.
 * `apply WS`: a fresh server on that store, whose main thread holds no extractor and whose workers
 * never started, pings while its first `apply` of a Python file re-ingests it on the main thread.
 * Prints JSON: what the call answered and the main-thread CPU each ping waited on, less GC pauses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { connect } from '../../../helpers/mcp.ts';
import { ownHeld, pingDuringGc } from '../../../helpers/ping.ts';

const [mode, ws] = process.argv.slice(2);
const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, config: { options: { graph: { watch: false, typeCheck: false, parseWorkers: 2 } } } });
try {
  if (mode === 'ingest') {
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    process.stdout.write(`${JSON.stringify({ isError: ing.result.isError ?? false, parsed: ing.json.files?.parsed ?? null })}\n`);
  } else {
    const next = `${fs.readFileSync(path.join(ws, 'pkg', 'm0.py'), 'utf8')}\ndef added(y):\n    return f0(y)\n`;
    const { result, held, gc } = await pingDuringGc(h, () => h.call('apply', { agent_id: 'a', file_path: 'pkg/m0.py', new_content: next }));
    const own = ownHeld(held, gc);
    process.stdout.write(`${JSON.stringify({ isError: result.result.isError ?? false, added: result.json.graph?.symbols?.added?.map((s: { id: string }) => s.id) ?? null, pings: held.length, longest: Math.max(...own) })}\n`);
  }
} finally {
  await h.close();
}
