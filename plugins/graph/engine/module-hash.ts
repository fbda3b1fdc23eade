/**
 * A hash of the modules in a folder (sorted by name: each name, then its content), for stamps that
 * must change when code changes: the graph snapshot's (linker-revision.ts) and the checker's
 * (ts-program/fingerprint.ts). An unreadable folder or module counts as nothing or its name only.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The first `length` hex digits of the SHA-1 of the modules of `dir` whose names `include` keeps. */
export function hashModules(dir: string, include: (name: string) => boolean, length: number): string {
  const h = createHash('sha1');
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter(include).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    try {
      h.update(name).update(readFileSync(join(dir, name)));
    } catch {
      // an unreadable module counts as its name only
    }
  }
  return h.digest('hex').slice(0, length);
}
