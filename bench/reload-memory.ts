/**
 * Memory kept per hot reload. `reloadGrowth` spawns this file as a child process (`--expose-gc`,
 * the same tsx loader `m1nd dev` uses): a host on a workspace holding one scaffolded-style plugin
 * (an index and a verb file), then N rounds of "edit the verb file → host.reload()". RSS and heap
 * are read after a full GC, once after a few warm-up reloads and once after the N rounds.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WARMUP = 3;

export interface ReloadGrowth {
  reloads: number;
  rssStartMb: number;
  rssEndMb: number;
  heapStartMb: number;
  heapEndMb: number;
  /** (end − start) RSS per reload, in MB. */
  rssPerReloadMb: number;
  /** (end − start) V8 heap per reload, in MB. */
  heapPerReloadMb: number;
  /** (end − start) memory outside the V8 heap (buffers, native objects) per reload, in MB. */
  externalPerReloadMb: number;
  /** Retired generations still reachable after the final GC (0 = all released). */
  retiredAlive: number;
  /** The edited verb answered its new value after the last reload. */
  lastAnswer: number;
}

/** Runs `reloads` edit+reload rounds in a child process and reports the memory they kept. */
export function reloadGrowth(reloads: number): Promise<ReloadGrowth> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx/esm', fileURLToPath(import.meta.url), String(reloads)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) return reject(new Error(`reload-memory child exited ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(line) as ReloadGrowth);
    });
  });
}

function verbSource(n: number): string {
  return `import { AgentId, Type, defineVerb } from ${JSON.stringify(path.join(ROOT, 'core/index.ts'))};\nexport const liveVerb = defineVerb({ name: 'live_hello', description: 'Edit ${n}.', input: Type.Object({ agent_id: AgentId }), tiers: ['essential'], effect: 'read', handler: () => ({ n: ${n} }) });\n`;
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

async function child(reloads: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const { startHost } = await import('../core/index.ts');
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-reload-mem-'));
  fs.writeFileSync(path.join(ws, 'package.json'), '{"type":"module"}\n');
  const dir = path.join(ws, 'plugins/live');
  fs.mkdirSync(path.join(dir, 'verbs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.ts'), `import { definePlugin } from ${JSON.stringify(path.join(ROOT, 'core/index.ts'))};\nimport { liveVerb } from './verbs/live_hello.ts';\nexport default definePlugin({ name: 'live', version: '1.0.0', apply(ctx) { ctx.registerVerb(liveVerb); } });\n`);
  fs.writeFileSync(path.join(dir, 'verbs/live_hello.ts'), verbSource(0));
  fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `export default { plugins: { dirs: ['./plugins'] } };\n`);
  const host = await startHost({ workspaceRoot: ws, env: {} });
  let edit = 0;
  // Weak references to every generation that gets retired: each must be collectable once it shut down.
  const retired: WeakRef<object>[] = [];
  const round = async () => {
    retired.push(new WeakRef(host.current));
    fs.writeFileSync(path.join(dir, 'verbs/live_hello.ts'), verbSource(++edit));
    const report = await host.reload();
    if (!report.ok) throw new Error(`reload ${edit} failed: ${report.error}`);
  };
  const settle = async () => {
    // Retired generations shut down asynchronously; let them, then collect twice (weak refs, finalizers).
    await new Promise((r) => setTimeout(r, 100));
    gc();
    await new Promise((r) => setImmediate(r));
    gc();
    return process.memoryUsage();
  };
  for (let i = 0; i < WARMUP; i++) await round();
  const start = await settle();
  for (let i = 0; i < reloads; i++) await round();
  const end = await settle();
  const answer = await host.call('live_hello', { agent_id: 'bench' });
  const text = answer.content[0]?.type === 'text' ? answer.content[0].text : '{}';
  await host.close();
  const result: ReloadGrowth = {
    reloads,
    rssStartMb: mb(start.rss),
    rssEndMb: mb(end.rss),
    heapStartMb: mb(start.heapUsed),
    heapEndMb: mb(end.heapUsed),
    rssPerReloadMb: Math.round(((end.rss - start.rss) / 1048576 / reloads) * 1000) / 1000,
    heapPerReloadMb: Math.round(((end.heapUsed - start.heapUsed) / 1048576 / reloads) * 1000) / 1000,
    retiredAlive: retired.filter((r) => r.deref() !== undefined).length,
    externalPerReloadMb: Math.round(((end.external - start.external) / 1048576 / reloads) * 1000) / 1000,
    lastAnswer: (JSON.parse(text) as { n: number }).n,
  };
  console.log(JSON.stringify(result));
}

if (import.meta.url === `file://${process.argv[1]}`) await child(Number(process.argv[2] ?? 30));
