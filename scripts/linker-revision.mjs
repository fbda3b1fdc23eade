/**
 * Writes dist/plugins/graph/engine/linker-revision.json: the hash of the engine's TypeScript modules
 * (plugins/graph/engine/*.ts) that graph snapshots are stamped with, so a server running `dist/`
 * and a process running the sources it was built from stamp alike (linker-revision.ts reads this
 * file when it sits beside it, and hashes the .ts files beside it otherwise, the same way).
 *
 *   node scripts/linker-revision.mjs
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The hash of a folder's TypeScript modules (not declarations), by sorted name: name, then content. */
export function linkerRevision(dir) {
  const h = createHash('sha1');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts')).sort()) h.update(name).update(readFileSync(join(dir, name)));
  return h.digest('hex').slice(0, 10);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const revision = linkerRevision(join(root, 'plugins/graph/engine'));
  writeFileSync(join(root, 'dist/plugins/graph/engine/linker-revision.json'), `${JSON.stringify({ revision })}\n`);
}
