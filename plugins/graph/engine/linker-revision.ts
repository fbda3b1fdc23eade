/**
 * The stamp a stored graph snapshot carries: its layout (SNAPSHOT_FORMAT) and a hash of the code that
 * links extractions into a graph (this folder's modules, as the process runs them: sources or dist/).
 * A snapshot linked by other code — an older m1nd, an edited resolver — is then re-linked from its
 * stored extractions on the next load, instead of serving edges the current rules would not make.
 * (Extractions carry the parser's version, checker results the program fingerprint.)
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SNAPSHOT_FORMAT } from './graph-snapshot.ts';

let stamp: number | undefined;

/** SNAPSHOT_FORMAT × 10¹² plus 40 bits of the linking code's hash (an exact integer in SQLite and JavaScript). */
export function snapshotStampFormat(): number {
  if (stamp !== undefined) return stamp;
  const here = dirname(fileURLToPath(import.meta.url));
  const h = createHash('sha1');
  let names: string[] = [];
  try {
    names = readdirSync(here).filter((n) => /\.[cm]?[jt]s$/.test(n) && !n.endsWith('.d.ts')).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    try {
      h.update(name).update(readFileSync(join(here, name)));
    } catch {
      // an unreadable module counts as its name only
    }
  }
  return (stamp = SNAPSHOT_FORMAT * 1e12 + (Number.parseInt(h.digest('hex').slice(0, 10), 16) % 1e12));
}
