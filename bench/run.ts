/** Runs every benchmark under bench/ (or those named on the command line), one after another. */
// First: every temp directory the benchmarks (and the servers they spawn) make goes under one
// directory of this run, removed at exit, as in the tests.
import '../test/helpers/run-tmpdir.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
// The names select benchmarks; the benchmarks themselves must not read them as their own arguments.
process.argv.splice(2);
const files = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
// The machine the figures come from (docs/benchmarks.md cites this line).
console.log(`machine: ${os.cpus().length} CPUs, Node ${process.versions.node}, ${os.platform()} ${os.arch()}`);
for (const f of files) {
  console.log(`\n== ${f}`);
  const mod = (await import(pathToFileURL(path.join(here, f)).href)) as { run?: () => Promise<void> };
  if (mod.run) await mod.run();
}
process.exit(0);
