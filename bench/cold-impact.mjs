/**
 * `m1nd call impact NODE` from a cold process, two builds interleaved on their own copies of one
 * repository (so neither reads the other's store): each copy is ingested by its build first, then
 * the runs alternate. Prints each build's median wall time and CPU (user + system from /usr/bin/time,
 * when installed) — on a loaded machine the CPU and the same-run ratio are the figures to read.
 *
 *   node bench/cold-impact.mjs NODE RUNS <bin A> <workspace A> [<bin B> <workspace B>]
 * e.g. node bench/cold-impact.mjs createNitro 7 bin/m1nd.js /tmp/nitro-a /work/main/bin/m1nd.js /tmp/nitro-b
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [node, runsArg, ...pairs] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
const builds = [];
for (let i = 0; i + 1 < pairs.length; i += 2) builds.push({ bin: resolve(pairs[i]), ws: resolve(pairs[i + 1]), wall: [], cpu: [] });
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const env = { PATH: process.env.PATH ?? '', M1ND_CACHE_DIR: process.env.M1ND_CACHE_DIR ?? mkdtempSync(join(tmpdir(), 'm1nd-cold-cache-')) };

function run(b, args) {
  const argv = [process.execPath, b.bin, ...args];
  const t = performance.now();
  const out = TIME ? spawnSync(TIME, ['-f', 'm1nd-cpu %U %S', ...argv], { cwd: b.ws, encoding: 'utf8', env }) : spawnSync(argv[0], argv.slice(1), { cwd: b.ws, encoding: 'utf8', env });
  const wall = performance.now() - t;
  if (out.status !== 0) throw new Error(`${b.bin} ${args.join(' ')} failed: ${out.stderr.slice(0, 400)}`);
  const cpu = /m1nd-cpu ([\d.]+) ([\d.]+)/.exec(out.stderr);
  return { wall, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN, stdout: out.stdout };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (const b of builds) run(b, ['call', 'ingest', '{"path":"."}']);
// One untimed call each: the store is warm in the OS cache, and a build that writes its snapshot on first load has done so.
for (const b of builds) run(b, ['call', 'impact', JSON.stringify({ node_id: node })]);
for (let i = 0; i < runs; i++) {
  for (const b of builds) {
    const r = run(b, ['call', 'impact', JSON.stringify({ node_id: node })]);
    b.wall.push(r.wall);
    b.cpu.push(r.cpu);
  }
}
for (const b of builds) console.log(`cold impact ${node}, ${b.bin}: wall median ${median(b.wall).toFixed(0)} ms [${b.wall.map((x) => x.toFixed(0)).join(', ')}], CPU median ${median(b.cpu).toFixed(0)} ms [${b.cpu.map((x) => x.toFixed(0)).join(', ')}]`);
if (builds.length === 2) console.log(`ratio first ÷ second: wall ${(median(builds[0].wall) / median(builds[1].wall)).toFixed(2)}, CPU ${(median(builds[0].cpu) / median(builds[1].cpu)).toFixed(2)}`);
