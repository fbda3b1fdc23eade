/** The store's `git_commits` table: the scanned git history, replaced whole by an ingest that rescans it. */
import type Database from 'better-sqlite3';

/** One commit of the scanned git history. */
export interface GitCommit {
  hash: string;
  /** Unix seconds (committer date). */
  time: number;
  subject: string;
  files: string[];
}

/** Queries of the `git_commits` table. */
export class GitCommitTable {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      clear: db.prepare('DELETE FROM git_commits'),
      put: db.prepare('INSERT INTO git_commits (seq, hash, time, subject, files_json) VALUES (?, ?, ?, ?, ?)'),
      rows: db.prepare('SELECT hash, time, subject, files_json FROM git_commits ORDER BY seq').raw(),
      count: db.prepare('SELECT COUNT(*) FROM git_commits').pluck(),
    };
  }

  /** Replaces the stored history (inside the caller's write transaction), keeping the given order. */
  replace(commits: readonly GitCommit[]): void {
    this.stmts.clear.run();
    commits.forEach((c, i) => this.stmts.put.run(i, c.hash, c.time, c.subject, JSON.stringify(c.files)));
  }

  /** The stored history, in the order it was written (newest first). */
  all(): GitCommit[] {
    return (this.stmts.rows.all() as [string, number, string, string][]).map(([hash, time, subject, files]) => ({
      hash,
      time,
      subject,
      files: JSON.parse(files) as string[],
    }));
  }

  /** Number of stored commits. */
  count(): number {
    return Number(this.stmts.count.get());
  }
}
