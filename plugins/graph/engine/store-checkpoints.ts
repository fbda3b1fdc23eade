/**
 * The store's named checkpoints: a checkpoint copies the file rows (not the extractions, which are
 * content-addressed and shared), so saving one is cheap and restoring one is a new generation.
 */
import type Database from 'better-sqlite3';
import { EngineError, EngineErrorCodes } from './errors.ts';
import { FILE_COLUMNS, fileRowFrom, type FileRow, type FileTable, type RawFileRow } from './store-files.ts';
import type { MetaTable } from './store-meta.ts';

/** A named checkpoint. */
export interface CheckpointInfo {
  name: string;
  createdAt: number;
  generation: number;
  files: number;
}

/** Queries of the `checkpoints` and `checkpoint_files` tables. */
export class CheckpointTable {
  private readonly db: Database.Database;
  private readonly meta: MetaTable;
  private readonly files: FileTable;
  private readonly stmts;

  constructor(db: Database.Database, meta: MetaTable, files: FileTable) {
    this.db = db;
    this.meta = meta;
    this.files = files;
    this.stmts = {
      list: db.prepare('SELECT name, created_at, generation, file_count FROM checkpoints ORDER BY created_at').raw(),
      get: db.prepare('SELECT name FROM checkpoints WHERE name = ?').pluck(),
      delete: db.prepare('DELETE FROM checkpoints WHERE name = ?'),
      filesDelete: db.prepare('DELETE FROM checkpoint_files WHERE name = ?'),
      fileRows: db.prepare(`SELECT ${FILE_COLUMNS} FROM checkpoint_files WHERE name = ?`).raw(),
      put: db.prepare('INSERT INTO checkpoints (name, created_at, generation, file_count) VALUES (?, ?, ?, ?)'),
      copyIn: db.prepare(`INSERT INTO checkpoint_files (name, ${FILE_COLUMNS}) SELECT ?, ${FILE_COLUMNS} FROM files`),
      clearFiles: db.prepare('DELETE FROM files'),
      restore: db.prepare(`INSERT INTO files (${FILE_COLUMNS}) SELECT ${FILE_COLUMNS} FROM checkpoint_files WHERE name = ?`),
    };
  }

  /** Saves the current files state under a name (replacing a checkpoint of that name). */
  save(name: string): CheckpointInfo {
    checkName(name);
    return this.db
      .transaction(() => {
        this.stmts.filesDelete.run(name);
        this.stmts.delete.run(name);
        const files = this.stmts.copyIn.run(name).changes;
        const generation = this.meta.generation();
        const createdAt = Date.now();
        this.stmts.put.run(name, createdAt, generation, files);
        return { name, createdAt, generation, files };
      })
      .immediate();
  }

  /** Makes a checkpoint's files state current (a new generation) and returns that generation. */
  restore(name: string): number {
    return this.db
      .transaction(() => {
        if (this.stmts.get.get(name) === undefined) {
          throw new EngineError(EngineErrorCodes.CHECKPOINT_NOT_FOUND, `no checkpoint named "${name}"`, `list checkpoints with persist status; known: ${this.list().map((c) => c.name).join(', ') || 'none'}`);
        }
        this.stmts.clearFiles.run();
        this.stmts.restore.run(name);
        this.meta.set('ingested_at', String(Date.now()));
        return this.meta.bumpGeneration();
      })
      .immediate();
  }

  /** Deletes a checkpoint and the extractions only it kept; returns false when there was none. */
  delete(name: string): boolean {
    return this.db
      .transaction(() => {
        this.stmts.filesDelete.run(name);
        const gone = this.stmts.delete.run(name).changes > 0;
        this.files.gcExtractions();
        return gone;
      })
      .immediate();
  }

  /** The file rows a named checkpoint saved, or null when there is no such checkpoint. */
  fileRows(name: string): { info: CheckpointInfo; files: Map<string, FileRow> } | null {
    const info = this.list().find((c) => c.name === name);
    if (!info) return null;
    const files = new Map<string, FileRow>();
    for (const r of this.stmts.fileRows.iterate(name) as IterableIterator<RawFileRow>) files.set(r[0], fileRowFrom(r));
    return { info, files };
  }

  /** Named checkpoints, oldest first. */
  list(): CheckpointInfo[] {
    return (this.stmts.list.all() as [string, number, number, number][]).map(([name, createdAt, generation, files]) => ({ name, createdAt, generation, files }));
  }
}

/** Names become part of error hints and tool output: keep them short and plain. */
function checkName(name: string): void {
  if (!/^[\w.-]{1,64}$/.test(name)) {
    throw new EngineError(EngineErrorCodes.CHECKPOINT_NAME, `invalid checkpoint name "${name}"`, 'use 1-64 letters, digits, ".", "_" or "-"');
  }
}
