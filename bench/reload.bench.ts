/**
 * Hot-reload latency through a real client: `m1nd dev --http` is spawned on a workspace with one
 * plugin; each round rewrites the plugin file (adding a verb) and times file saved → the client's
 * notifications/tools/list_changed → the new verb visible in tools/list. Baseline in the same run:
 * a tools/list round trip on the same connection. Prints medians. Then the memory a reload keeps:
 * BENCH_RELOADS (default 200) edit+reload rounds in a child process (bench/reload-memory.ts),
 * RSS and heap after a full GC, against the process's own size after warm-up as the baseline.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { reloadGrowth } from './reload-memory.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

function pluginSource(n: number): string {
  const verbs = Array.from({ length: n }, (_, i) => `ctx.registerVerb({ name: 'live_${i}', description: 'Verb ${i}.', input: Type.Object({ agent_id: AgentId }), tiers: ['essential'], effect: 'read', handler: () => ({ i: ${i} }) });`);
  return `import { AgentId, definePlugin, Type } from ${JSON.stringify(path.join(ROOT, 'core/index.ts'))};\nexport default definePlugin({ name: 'live', version: '1.0.0', apply(ctx) {\n${verbs.join('\n')}\n} });\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs the benchmark and prints one line per measure. */
export async function run(): Promise<void> {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-reload-'));
  fs.writeFileSync(path.join(ws, 'package.json'), '{"type":"module"}\n');
  const file = path.join(ws, 'plugins/live/index.ts');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, pluginSource(1));
  fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `export default { plugins: { dirs: ['./plugins'] } };\n`);
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/m1nd.js'), 'dev', '--http', '--port', '0', '--workspace', ws], { cwd: ws, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving MCP at (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`m1nd dev exited: ${err}`)));
  });
  const client = new Client({ name: 'bench', version: '0' });
  let notified: (() => void) | undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => notified?.());
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const toList: number[] = [];
  const toVisible: number[] = [];
  const listRtt: number[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      await client.listTools();
      listRtt.push(performance.now() - t);
      const got = new Promise<void>((resolve) => (notified = resolve));
      const saved = performance.now();
      fs.writeFileSync(file, pluginSource(r + 2));
      await got;
      toList.push(performance.now() - saved);
      const { tools } = await client.listTools();
      if (!tools.some((x) => x.name === `live_${r + 1}`)) throw new Error(`live_${r + 1} not visible after reload`);
      toVisible.push(performance.now() - saved);
      await new Promise((res) => setTimeout(res, 200));
    }
  } finally {
    await client.close();
    child.kill('SIGTERM');
  }
  console.log(`reload: file saved → tools/list_changed median ${median(toList).toFixed(0)} ms (min ${Math.min(...toList).toFixed(0)}, max ${Math.max(...toList).toFixed(0)}) over ${ROUNDS} edits; → new verb listed ${median(toVisible).toFixed(0)} ms`);
  console.log(`reload: baseline tools/list round trip ${median(listRtt).toFixed(1)} ms; debounce is 150 ms of that`);
  const g = await reloadGrowth(Number(process.env.BENCH_RELOADS ?? 200));
  const grown = g.rssEndMb - g.rssStartMb;
  console.log(
    `reload memory: ${g.reloads} reloads grew RSS ${g.rssStartMb} → ${g.rssEndMb} MB (+${grown.toFixed(1)} MB, ${(g.rssPerReloadMb * 1024).toFixed(0)} KB/reload; ${((grown / g.rssStartMb) * 100).toFixed(0)}% of the warm process), heap ${g.heapStartMb} → ${g.heapEndMb} MB; target < 50 MB per 200 reloads`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
