/** Whether a watched folder is one the watchers and scans never look in (daemon_start, auto_ingest_start refuse it). */
import { join } from 'node:path';
import { GitignoreRules, skipped } from '../graph/api.ts';

/** Hidden or on the skip list (node_modules, vendor, dist, build, …), or ignored by git's rules (.gitignore files on the way, .git/info/exclude). */
export async function neverWatched(root: string, rel: string, dir: boolean): Promise<boolean> {
  if (!rel) return false;
  if (skipped(rel)) return true;
  const rules = new GitignoreRules(root);
  await rules.prefetch([join(root, rel)]);
  return rules.ignores(rel, dir);
}
