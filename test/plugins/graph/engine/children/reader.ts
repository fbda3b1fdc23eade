/**
 * Child process: opens an engine on a store another process writes, prints what it sees, then on
 * each stdin line runs ensureFresh() and prints again. Output: one JSON object per line.
 */
import { createInterface } from 'node:readline';
import { CodeGraphEngine } from '../../../../../plugins/graph/engine/engine.ts';
import { fakeParser } from '../fake-parser.ts';

const [root, storeDir, probe] = process.argv.slice(2);
const engine = new CodeGraphEngine({ root, storeDir, parser: fakeParser() });
const report = (extra: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify({ generation: engine.generation, nodes: engine.graph.nodeCount, probe: engine.getNode(probe) !== null, ...extra })}\n`);
};
report({ opened: await engine.open() });
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'quit') break;
  report({ fresh: await engine.ensureFresh() });
}
await engine.close();
// stdin stays referenced after the loop; exit explicitly.
process.exit(0);
