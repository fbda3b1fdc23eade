/**
 * The stamp a stored graph snapshot carries: its layout (SNAPSHOT_FORMAT) and a hash of the code that
 * links extractions into a graph (this folder's TypeScript modules). A snapshot linked by other code
 * — an older m1nd, an edited resolver — is then re-linked from its stored extractions on the next
 * load, instead of serving edges the current rules would not make. (Extractions carry the parser's
 * version, checker results the program fingerprint.) Built code reads the hash `npm run build` wrote
 * beside it from the sources (scripts/linker-revision.mjs), so `dist/` and the sources it was built
 * from stamp alike and share a store.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SNAPSHOT_FORMAT } from './graph-snapshot.ts';
import { hashModules } from './module-hash.ts';

let stamp: number | undefined;

/** The hash of a folder's TypeScript modules (not declarations), by sorted name: as scripts/linker-revision.mjs computes it. */
export function linkerRevision(dir: string): string {
  return hashModules(dir, (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'), 10);
}

/** The revision built code carries (linker-revision.json beside it), else that of the sources beside this module. */
function revision(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  try {
    const built = JSON.parse(readFileSync(join(here, 'linker-revision.json'), 'utf8')) as { revision?: unknown };
    if (typeof built.revision === 'string' && /^[0-9a-f]{10}$/.test(built.revision)) return built.revision;
  } catch {
    // running from sources (or a build without the file): hash the modules here
  }
  return linkerRevision(here);
}

/** SNAPSHOT_FORMAT × 10¹² plus 40 bits of the linking code's revision (an exact integer in SQLite and JavaScript). */
export function snapshotStampFormat(): number {
  stamp ??= SNAPSHOT_FORMAT * 1e12 + (Number.parseInt(revision(), 16) % 1e12);
  return stamp;
}
