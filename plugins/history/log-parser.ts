/**
 * Streaming parser of `git log -z --numstat -M --format=<RS>%m<US>%H<US>%ct<US>%an<US>%P<US>%s`: commits
 * come out as git writes them, so a 5,000-commit log is parsed in small pieces between reads instead
 * of one blocking pass at the end. Merge commits are skipped (their changes are counted on the merged
 * branch); `--boundary` commits (mark `-`) are collected apart, which is how an incremental run learns
 * that the stored head is an ancestor of the new one. Without `--numstat` (`--name-only`, for
 * repositories missing blobs) file tokens are bare paths and line counts are unknown (-1).
 */

/** One file a commit touched. `added`/`deleted` are line counts, -1 for a binary file. */
export interface FileChange {
  path: string;
  added: number;
  deleted: number;
  /** The path before a rename. */
  from?: string;
}

/** One mined commit (merges excluded: their changes are already counted on the merged branch). */
export interface MinedCommit {
  hash: string;
  /** Committer date, unix seconds. */
  time: number;
  author: string;
  subject: string;
  files: FileChange[];
}

export const RECORD = '\x1e';
const FIELD = '\x1f';

/** The `--format` argument the parser expects. */
export const LOG_FORMAT = `--format=${RECORD}%m${FIELD}%H${FIELD}%ct${FIELD}%an${FIELD}%P${FIELD}%s`;

/** Accumulates output chunks and emits each complete commit record. */
export class LogParser {
  private buffer = '';
  readonly commits: MinedCommit[] = [];
  /** Hashes of `--boundary` commits (excluded parents of the range). */
  readonly boundary = new Set<string>();

  /** Feeds a chunk of output; complete records are parsed at once. */
  push(chunk: string): void {
    this.buffer += chunk;
    const end = this.buffer.lastIndexOf(RECORD);
    if (end <= 0) return;
    const complete = this.buffer.slice(0, end);
    this.buffer = this.buffer.slice(end);
    for (const rec of complete.split(RECORD)) if (rec) this.record(rec);
  }

  /** Parses what is left; returns every commit in output order (newest first). */
  finish(): MinedCommit[] {
    for (const rec of this.buffer.split(RECORD)) if (rec) this.record(rec);
    this.buffer = '';
    return this.commits;
  }

  private record(rec: string): void {
    const tokens = rec.split('\0');
    const [mark, hash, time, author, parents, subject] = tokens[0].split(FIELD);
    if (!hash || !/^[0-9a-f]{7,64}$/.test(hash)) return;
    if (mark === '-') {
      this.boundary.add(hash);
      return;
    }
    if ((parents ?? '').trim().split(' ').length > 1) return; // a merge
    const files: FileChange[] = [];
    for (let i = 1; i < tokens.length; i++) {
      const t = tokens[i].replace(/^\n+/, '');
      if (!t) continue;
      const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(t);
      if (!m) {
        files.push({ path: t, added: -1, deleted: -1 }); // --name-only
        continue;
      }
      const added = m[1] === '-' ? -1 : Number(m[1]);
      const deleted = m[2] === '-' ? -1 : Number(m[2]);
      if (m[3]) files.push({ path: m[3], added, deleted });
      else if (i + 2 < tokens.length) {
        // A rename: `added\tdeleted\t\0old\0new`.
        files.push({ path: tokens[i + 2], added, deleted, from: tokens[i + 1] });
        i += 2;
      }
    }
    this.commits.push({ hash, time: Number(time), author: author ?? '', subject: subject ?? '', files });
  }
}
