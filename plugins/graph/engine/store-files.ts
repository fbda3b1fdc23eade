/**
 * The store's `files` and `extractions` tables: one row per ingested file pointing at its
 * extraction, which is content-addressed so unchanged files and checkpoints share rows.
 */
import type Database from 'better-sqlite3';
import { returnBindings } from './type-facts.ts';
import type { FileExtraction, Language } from './extraction.ts';
import { SliceClock } from './steps.ts';

/** One ingested file as stored (without its extraction). */
export interface FileRow {
  path: string;
  /** sha1 of the file bytes. */
  hash: string;
  size: number;
  mtimeMs: number;
  language: Language;
  loc: number;
  parseErrors: number;
  /** Key of the extraction row: language, parser version and content hash. */
  extractionKey: string;
}

/** The columns of a file row, in `RawFileRow` order (shared with `checkpoint_files`). */
export const FILE_COLUMNS = 'path, hash, size, mtime_ms, language, loc, parse_errors, extraction_key';

/** A file row as SQLite returns it in raw mode. */
export type RawFileRow = [string, string, number, number, string, number, number, string];

/** The typed form of a raw file row. */
export function fileRowFrom(r: RawFileRow): FileRow {
  return { path: r[0], hash: r[1], size: r[2], mtimeMs: r[3], language: r[4] as Language, loc: r[5], parseErrors: r[6], extractionKey: r[7] };
}

/** Paths looked up per statement by `rowsOf`. */
const ROWS_PER_LOOKUP = 500;
/** Rows read per statement by `rowsSliced`. */
const ROWS_PER_PAGE = 256;

/** Queries of the `files` and `extractions` tables. */
export class FileTable {
  private readonly stmts;

  private cached: { version: string; rows: Map<string, FileRow> } | null = null;

  constructor(db: Database.Database) {
    this.stmts = {
      rows: db.prepare(`SELECT ${FILE_COLUMNS} FROM files`).raw(),
      rowsAfter: db.prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE path > ? ORDER BY path LIMIT ${ROWS_PER_PAGE}`).raw(),
      // Some paths in one statement (a JSON array of them): one call, not one per path.
      rowsOf: db.prepare(`SELECT ${FILE_COLUMNS} FROM files WHERE path IN (SELECT value FROM json_each(?))`).raw(),
      rowsWithJson: db.prepare(`SELECT ${FILE_COLUMNS.split(', ').map((c) => `f.${c}`).join(', ')}, e.json FROM files f JOIN extractions e ON e.key = f.extraction_key`).raw(),
      extractionByKey: db.prepare('SELECT json FROM extractions WHERE key = ?').pluck(),
      extractionHasTypeOnly: db.prepare(`SELECT instr(json, '"typeOnly":true') > 0 FROM extractions WHERE key = ?`).pluck(),
      hasExtraction: db.prepare('SELECT 1 FROM extractions WHERE key = ?').pluck(),
      putExtraction: db.prepare('INSERT OR IGNORE INTO extractions (key, json) VALUES (?, ?)'),
      put: db.prepare(
        `INSERT INTO files (${FILE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, size = excluded.size, mtime_ms = excluded.mtime_ms,
           language = excluded.language, loc = excluded.loc, parse_errors = excluded.parse_errors, extraction_key = excluded.extraction_key`,
      ),
      delete: db.prepare('DELETE FROM files WHERE path = ?'),
      // Checkpoints hold extraction keys too, so an extraction lives while either table points at it.
      gcExtractions: db.prepare(
        `DELETE FROM extractions WHERE key NOT IN (SELECT extraction_key FROM files)
           AND key NOT IN (SELECT extraction_key FROM checkpoint_files)`,
      ),
      countFiles: db.prepare('SELECT COUNT(*) FROM files').pluck(),
      // What changed since the last read: other connections' commits (data_version) and this connection's writes (total_changes).
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      ownChanges: db.prepare('SELECT total_changes()').pluck(),
      countExtractions: db.prepare('SELECT COUNT(*) FROM extractions').pluck(),
    };
  }

  /**
   * Every stored file row (no extraction), by path: a new Map each call (rows are shared, never
   * mutated). Re-read only when the database changed since the last read, by another connection or
   * this one; an incremental re-ingest of one file otherwise spent ~10 ms re-reading 2,000 rows.
   */
  rows(): Map<string, FileRow> {
    const version = `${this.stmts.dataVersion.get() as number}:${this.stmts.ownChanges.get() as number}`;
    if (this.cached?.version !== version) {
      const out = new Map<string, FileRow>();
      for (const r of this.stmts.rows.iterate() as IterableIterator<RawFileRow>) out.set(r[0], Object.freeze(fileRowFrom(r)));
      this.cached = { version, rows: out };
    }
    return new Map(this.cached.rows);
  }

  /**
   * The stored rows of some paths (those stored), by path: one indexed lookup each, so an edit's
   * re-ingest of a few hundred files never reads every row (~20-50 ms on 2,000 files once the
   * cache above is stale, i.e. after every commit). Served from that cache while it is current.
   */
  rowsOf(paths: Iterable<string>): Map<string, FileRow> {
    const out = new Map<string, FileRow>();
    const version = this.cached && `${this.stmts.dataVersion.get() as number}:${this.stmts.ownChanges.get() as number}`;
    if (this.cached && this.cached.version === version) {
      for (const path of paths) {
        const row = this.cached.rows.get(path);
        if (row) out.set(path, row);
      }
      return out;
    }
    const list = [...new Set(paths)];
    // A few hundred paths per statement keeps each call (and its JSON) small.
    for (let i = 0; i < list.length; i += ROWS_PER_LOOKUP) {
      for (const r of this.stmts.rowsOf.iterate(JSON.stringify(list.slice(i, i + ROWS_PER_LOOKUP))) as IterableIterator<RawFileRow>) out.set(r[0], Object.freeze(fileRowFrom(r)));
    }
    return out;
  }

  /**
   * `rows()` read a page of rows at a time, yielding to the event loop between pages once `sliceMs`
   * of work has passed (2,000 rows take 3-6 ms, 10,000 five times that). Pages are read outside a
   * transaction: a commit of another process between two pages may show in some rows and not in
   * others, which an ingest's comparison tolerates (its commit then notices the other generation and
   * folds it in); such a read is not cached.
   */
  async rowsSliced(sliceMs: number): Promise<ReadonlyMap<string, FileRow>> {
    const version = (): string => `${this.stmts.dataVersion.get() as number}:${this.stmts.ownChanges.get() as number}`;
    const before = version();
    // The map is shared, never copied (10,000 entries copied were ~1 ms of a background turn): read-only.
    if (this.cached?.version === before) return this.cached.rows;
    const out = new Map<string, FileRow>();
    // A background read (the daemon's or a watcher's re-ingest, a snapshot's fingerprint) shares the
    // turn's budget with the other background work of the process (steps.ts).
    const clock = new SliceClock(sliceMs);
    let last = '';
    for (;;) {
      const page = this.stmts.rowsAfter.all(last) as RawFileRow[];
      for (const r of page) out.set(r[0], Object.freeze(fileRowFrom(r)));
      if (page.length < ROWS_PER_PAGE) break;
      last = page[page.length - 1][0];
      if (clock.spent()) await clock.yield();
    }
    if (version() === before) this.cached = { version: before, rows: out };
    return out;
  }

  /** Every stored file with its extraction (the caller provides the read transaction); `light` as in GraphStore.loadAll. */
  rowsWithExtractions(light: boolean): { row: FileRow; extraction: FileExtraction }[] {
    const files: { row: FileRow; extraction: FileExtraction }[] = [];
    for (const r of this.stmts.rowsWithJson.iterate() as IterableIterator<[...RawFileRow, string]>) {
      const row = fileRowFrom(r as unknown as RawFileRow);
      const extraction = JSON.parse(r[8]) as FileExtraction;
      extraction.path = row.path;
      if (light) lightenExtraction(extraction);
      files.push({ row, extraction });
    }
    return files;
  }

  /** The extraction stored under a key, with its path set, or null. */
  extraction(key: string, path: string): FileExtraction | null {
    const json = this.stmts.extractionByKey.get(key) as string | undefined;
    if (json === undefined) return null;
    const ex = JSON.parse(json) as FileExtraction;
    ex.path = path;
    return ex;
  }

  /** Whether the stored extraction under a key has a type-only import (searched by SQLite in its JSON text: nothing parsed or copied). */
  extractionHasTypeOnly(key: string): boolean {
    return this.stmts.extractionHasTypeOnly.get(key) === 1;
  }

  /** True when an extraction with this key is stored. */
  hasExtraction(key: string): boolean {
    return this.stmts.hasExtraction.get(key) !== undefined;
  }

  /** Writes a file row, and its extraction's JSON when given (a stored key is never rewritten). */
  putJson(row: FileRow, json: string | null): void {
    if (json !== null) this.stmts.putExtraction.run(row.extractionKey, json);
    this.stmts.put.run(row.path, row.hash, row.size, row.mtimeMs, row.language, row.loc, row.parseErrors, row.extractionKey);
  }

  /** Deletes a file row (its extraction goes at the next `gcExtractions`). */
  delete(path: string): void {
    this.stmts.delete.run(path);
  }

  /** Deletes extractions no file row or checkpoint row points at. */
  gcExtractions(): void {
    this.stmts.gcExtractions.run();
  }

  /** Number of file rows and of stored extractions. */
  counts(): { files: number; extractions: number } {
    return { files: Number(this.stmts.countFiles.get()), extractions: Number(this.stmts.countExtractions.get()) };
  }
}

/**
 * Drops what a file's links need but nothing reads before it is linked (calls, references, doc
 * links, bindings other than fields and type aliases): the builder re-reads the whole extraction
 * when it links the file.
 */
export function lightenExtraction(extraction: FileExtraction): void {
  extraction.calls = [];
  extraction.references = [];
  extraction.docLinks = [];
  // Only class fields and type aliases are read before a file is linked (receiver types of other files).
  if (extraction.bindings) extraction.bindings = fieldBindings(extraction);
}

/** A light copy of an extraction (as `lightenExtraction` leaves it), sharing its symbols, imports and inherits. */
export function lightExtraction(extraction: FileExtraction): FileExtraction {
  const copy = { ...extraction };
  lightenExtraction(copy);
  return copy;
}

/** The bindings of an extraction that belong to its classes (fields), its type aliases and its module-level variables: the only ones read before linking (type facts). */
function fieldBindings(extraction: FileExtraction): FileExtraction['bindings'] {
  const classes = new Set(extraction.symbols.filter((s) => s.kind === 'class' || s.kind === 'interface' || s.kind === 'type').map((s) => s.qualifiedName));
  // And what an unannotated function's result is inferred from (type-facts.ts).
  const inferred = new Set([...returnBindings(extraction).values()].flat());
  return extraction.bindings!.filter((b) => b.source === 'alias' || (b.scope === null && b.source === 'assign') || (b.scope !== null && classes.has(b.scope)) || inferred.has(b));
}
