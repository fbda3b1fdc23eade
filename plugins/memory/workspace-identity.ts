/** Who and where a stamp comes from: the workspace root and its checked-out commit (read from .git, no process spawned). */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The commit HEAD points at, or null outside a git repository. */
export function headCommit(root: string): string | null {
  try {
    const git = path.join(root, '.git');
    const head = readFileSync(path.join(git, 'HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return head;
    const ref = head.slice(5);
    try {
      return readFileSync(path.join(git, ref), 'utf8').trim();
    } catch {
      const packed = readFileSync(path.join(git, 'packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
      return line ? line.split(' ')[0] : null;
    }
  } catch {
    return null;
  }
}
