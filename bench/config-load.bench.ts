/**
 * Loading a config file: esbuild bundling to a temporary ES module (what m1nd does since configs load
 * in CommonJS projects) against importing it through the tsx loader with a fresh module URL (what it
 * did before, ES-module projects only). Both in the same run; the ratio is the figure to read. The
 * tsx path re-uses an unchanged module (content-hashed URL), so its repeat loads evaluate nothing;
 * the bundle path builds and evaluates on every load.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfigFile } from '../core/config.ts';
import { generationImporter } from '../core/discovery.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function run(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-config-bench-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  fs.writeFileSync(path.join(dir, 'tiers.ts'), `export const tiers = { triage: { extends: 'essential', add: ['impact'] } };\n`);
  const file = path.join(dir, 'm1nd.config.ts');
  fs.writeFileSync(file, `import { tiers } from './tiers.ts';\nexport default { bundles: ['default'], tiers, gates: { resultTokenLimit: 20000 } };\n`);
  const rounds = 15;
  const bundled: number[] = [];
  const tsx: number[] = [];
  let gen = 1000;
  // Warm both paths once (esbuild's service process, tsx's loader), then alternate.
  let t0 = performance.now();
  await loadConfigFile(file);
  const firstBundled = performance.now() - t0;
  t0 = performance.now();
  await loadConfigFile(file, generationImporter(gen++));
  const firstTsx = performance.now() - t0;
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await loadConfigFile(file);
    bundled.push(performance.now() - t);
    t = performance.now();
    await loadConfigFile(file, generationImporter(gen++));
    tsx.push(performance.now() - t);
  }
  console.log(`config load, first in the process (esbuild service start; tsx compiles): esbuild bundle ${firstBundled.toFixed(1)} ms, tsx import ${firstTsx.toFixed(1)} ms`);
  console.log(`config load (median of ${rounds}): esbuild bundle ${median(bundled).toFixed(1)} ms, tsx fresh import ${median(tsx).toFixed(1)} ms, ratio ${(median(bundled) / median(tsx)).toFixed(2)}`);
  fs.rmSync(dir, { recursive: true, force: true });
}
