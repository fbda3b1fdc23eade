/**
 * Rows of an ingest that is still running, staged in the store's `ingest_stage` table by the commit
 * worker as they arrive instead of held in a heap until the commit: a 14K-file ingest hands over
 * ~300 MB of extraction JSON before its commit. Staged rows are invisible to readers (no file row
 * points at them); the commit copies a run's rows into `files` and `extractions` inside its IMMEDIATE
 * transaction and deletes them. Each staging is a short transaction of its own; a run that stops
 * before its commit deletes its rows, and rows a crashed process left are deleted by a later commit.
 */
import type Database from 'better-sqlite3';
import type { SerializedFile } from './store-commit.ts';
import { FILE_COLUMNS } from './store-files.ts';

const COLUMNS = FILE_COLUMNS.split(', ');
/** Staged rows older than this belong to a process that died mid-ingest. */
const STALE_MS = 24 * 3600_000;

/** A connection's access to staged rows. */
export class StageTable {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    const fileCols = COLUMNS.join(', ');
    this.stmts = {
      add: db.prepare(`INSERT OR REPLACE INTO ingest_stage (run, seq, ${fileCols}, json, created_at) VALUES (?, ?, ${COLUMNS.map(() => '?').join(', ')}, ?, ?)`),
      // A stored key is never rewritten (content-addressed), as FileTable.putJson.
      extractions: db.prepare('INSERT OR IGNORE INTO extractions (key, json) SELECT extraction_key, json FROM ingest_stage WHERE run = ? AND json IS NOT NULL ORDER BY seq'),
      files: db.prepare(
        `INSERT INTO files (${fileCols}) SELECT ${fileCols} FROM ingest_stage WHERE run = ? ORDER BY seq
         ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime_ms = excluded.mtime_ms,
           language = excluded.language, loc = excluded.loc, parse_errors = excluded.parse_errors, extraction_key = excluded.extraction_key`,
      ),
      counts: db.prepare('SELECT COUNT(*), COUNT(json) FROM ingest_stage WHERE run = ?').raw(),
      drop: db.prepare('DELETE FROM ingest_stage WHERE run = ?'),
      json: db.prepare('SELECT json FROM ingest_stage WHERE run = ? AND seq = ?').pluck(),
      stale: db.prepare('DELETE FROM ingest_stage WHERE created_at < ?'),
    };
  }

  /** Stages rows of `run` numbered from `seq` (one short write transaction; NORMAL durability: the rows are a cache). */
  add(run: string, seq: number, files: readonly SerializedFile[]): void {
    const at = Date.now();
    const tx = this.db.transaction(() => {
      for (const [r, json] of files) this.stmts.add.run(run, seq++, r.path, r.hash, r.size, r.mtimeMs, r.language, r.loc, r.parseErrors, r.extractionKey, json, at);
    });
    this.db.pragma('synchronous = NORMAL');
    try {
      tx.immediate();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /**
   * Writes a run's staged rows to `files` and `extractions` and deletes them, with any stale rows
   * (call inside the commit's transaction); returns how many rows and extractions were staged.
   */
  write(run: string): { files: number; extractions: number } {
    const [files, extractions] = this.stmts.counts.get(run) as [number, number];
    if (files > 0) {
      this.stmts.extractions.run(run);
      this.stmts.files.run(run);
      this.stmts.drop.run(run);
    }
    this.stmts.stale.run(Date.now() - STALE_MS);
    return { files, extractions };
  }

  /** The extraction JSON staged as row `seq` of `run` (null: none staged there, or its key was stored already). */
  json(run: string, seq: number): string | null {
    return (this.stmts.json.get(run, seq) as string | null | undefined) ?? null;
  }

  /** Deletes a run's staged rows (the ingest stopped before its commit). */
  drop(run: string): void {
    this.stmts.drop.run(run);
  }
}
