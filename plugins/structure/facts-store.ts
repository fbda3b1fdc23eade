/**
 * File facts persisted per file content: a SQLite table the structure plugin owns beside the graph
 * store (`<storeDir>/structure-facts.db`, better-sqlite3, WAL), one row per workspace path with the
 * content hash it was computed from and the facts as a compact blob (encodeFacts: the findings as
 * JSON, every definition's rows, token count and shingles as one Int32 run, read back as views of
 * one buffer per file — no object per shingle, no copy per definition).
 * A new process, or the first call after a restart, reads them instead of parsing. Rows carry the
 * facts version — a hash of the rule set (queries, messages, checks' code), the facts code and the
 * grammar versions — and a table written under another version is emptied on open, so a rule change
 * invalidates every row. Read-only servers read rows but never write them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { backgroundTurnSpent, backgroundYield, grammarPath } from '../graph/api.ts';
import { CODE_RULES } from './code-rules.ts';
import { GRAMMAR_NAMES } from './code-trees.ts';
import { definitionShapes, definitionsSize, readDefinitions, writeDefinitions, writeDefinitionShapes } from './definition-shapes.ts';
import { computeFacts, findingsOf, type FileFacts } from './file-facts.ts';

const require = createRequire(import.meta.url);

/** Raised by hand when the facts' layout changes in a way the code hashes below would not show. */
const FACTS_FORMAT = 3;
export const FACTS_DB = 'structure-facts.db';
/** Main-thread time a background write spends encoding and inserting rows before it commits and yields. */
const WRITE_SLICE_MS = 2;
/** Rows read per statement (a `path IN (…)` list). */
const READ_CHUNK = 200;
/** The most of the file SQLite maps into memory for reads (address space; pages are loaded as read). */
const MMAP_BYTES = 512 * 1024 * 1024;

let version: string | null = null;

/** The facts version: the rules, the code that computes facts and the grammars they parse with. */
export function factsVersion(): string {
  if (version) return version;
  const h = createHash('sha1');
  h.update(`format ${FACTS_FORMAT}\n`);
  for (const r of CODE_RULES) h.update(`${r.id}\0${r.preset}\0${r.languages.join(',')}\0${r.query}\0${r.severity}\0${r.message}\0${r.needs?.source ?? ''}\0${r.anchor ? `${r.anchor.at.source} ${r.anchor.roots.join(',')} ${r.anchor.keep?.toString() ?? ''}` : ''}\0${r.check?.toString() ?? ''}\n`);
  h.update(computeFacts.toString()).update(findingsOf.toString()).update(definitionShapes.toString()).update(writeDefinitionShapes.toString());
  h.update(`web-tree-sitter ${packageVersion('web-tree-sitter')}\n`);
  for (const name of GRAMMAR_NAMES) {
    let size = -1;
    try {
      size = statSync(grammarPath(name)).size;
    } catch {
      // a grammar that is not installed parses nothing: its size stays -1
    }
    h.update(`${name} ${size}\n`);
  }
  return (version = h.digest('hex').slice(0, 16));
}

function packageVersion(name: string): string {
  try {
    const main = require.resolve(name);
    for (let dir = main; dir.length > 1; dir = join(dir, '..')) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name) return pkg.version ?? '?';
      } catch {
        // not this directory
      }
    }
  } catch {
    // not installed
  }
  return '?';
}

/** Counters since the process started (tests and the bench read them through verb output). */
export interface StoreCounters {
  read: number;
  written: number;
}

export class FactsStore {
  private readonly db: Database.Database;
  private readonly get: Database.Statement[] = [];
  private readonly put: Database.Statement | null;
  readonly counters: StoreCounters = { read: 0, written: 0 };

  private constructor(db: Database.Database, writable: boolean) {
    this.db = db;
    this.put = writable ? db.prepare('INSERT OR REPLACE INTO facts (path, hash, blob) VALUES (?, ?, ?)') : null;
  }

  /** Opens (creating when writable) the table under `storeDir`; null when there is none to read or it cannot open. */
  static open(storeDir: string, writable: boolean): FactsStore | null {
    const file = join(storeDir, FACTS_DB);
    try {
      if (!writable) statSync(file);
      else mkdirSync(storeDir, { recursive: true });
      const db = new (require('better-sqlite3') as typeof Database)(file, { readonly: !writable, fileMustExist: !writable });
      db.pragma('busy_timeout = 2000');
      // Reads through a memory map: a scan reads most rows, and without it every row's overflow
      // pages go through SQLite's small page cache (a read of the stdlib's 1,786 rows cost ~5× the CPU).
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      if (writable) {
        // A rollback journal, not WAL: a read-only server then opens this file without creating a -wal/-shm beside it.
        db.pragma('journal_mode = DELETE');
        db.pragma('synchronous = NORMAL');
        db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE IF NOT EXISTS facts (path TEXT PRIMARY KEY, hash TEXT NOT NULL, blob BLOB NOT NULL) WITHOUT ROWID;');
        // The paths alone, for `retain`'s scan: the table's rows hold the blobs inline, and listing
        // 10,000 paths through them read every row's data (~12 ms on the main thread).
        db.exec('CREATE INDEX IF NOT EXISTS facts_paths ON facts (path)');
        const stored = (db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined)?.value;
        if (stored !== factsVersion()) {
          db.transaction(() => {
            db.exec('DELETE FROM facts');
            db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)").run(factsVersion());
          })();
        }
      } else {
        const stored = (db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined)?.value;
        if (stored !== factsVersion()) {
          db.close();
          return null; // written by other rules: nothing here is ours to read
        }
      }
      return new FactsStore(db, writable);
    } catch {
      return null;
    }
  }

  /** The stored facts of `wanted` whose row has the same content hash. */
  read(wanted: readonly { path: string; hash: string }[]): Map<string, FileFacts> {
    const out = new Map<string, FileFacts>();
    if (!this.db.open) return out; // closed by a shutdown meanwhile
    for (let i = 0; i < wanted.length; i += READ_CHUNK) {
      const chunk = wanted.slice(i, i + READ_CHUNK);
      const byPath = new Map(chunk.map((w) => [w.path, w.hash]));
      for (const row of this.statement(chunk.length).iterate(...chunk.map((w) => w.path)) as Iterable<{ path: string; hash: string; blob: Buffer }>) {
        if (byPath.get(row.path) !== row.hash) continue;
        try {
          out.set(row.path, new StoredFacts(row.blob));
        } catch {
          // unreadable: recomputed and rewritten
        }
      }
    }
    this.counters.read += out.size;
    return out;
  }

  /** Stores facts computed for these contents (no-op when read-only). */
  write(rows: readonly { path: string; hash: string; facts: FileFacts }[]): void {
    const put = this.put;
    if (!put || rows.length === 0) return;
    try {
      this.db.transaction(() => {
        for (const r of rows) put.run(r.path, r.hash, encodeFacts(r.facts));
      })();
      this.counters.written += rows.length;
    } catch {
      // busy or full: the facts stay in memory, the next process computes them again
    }
  }

  /**
   * `write` for the background job: transactions of a few ms of main-thread time each (the rows'
   * encoding and inserts; the commit after them), the event loop given back between them under the
   * process's shared background budget. One transaction of ~100 rows held it 20–26 ms of CPU.
   */
  async writeSliced(rows: readonly { path: string; hash: string; facts: FileFacts }[]): Promise<void> {
    const put = this.put;
    let i = 0;
    while (put && i < rows.length && this.db.open) {
      if (backgroundTurnSpent()) await backgroundYield();
      if (!this.db.open) return; // closed by a shutdown meanwhile
      const from = i;
      const t0 = performance.now();
      try {
        this.db.transaction(() => {
          do {
            const r = rows[i++];
            put.run(r.path, r.hash, encodeFacts(r.facts));
          } while (i < rows.length && performance.now() - t0 < WRITE_SLICE_MS);
        })();
        this.counters.written += i - from;
      } catch {
        return; // busy or full: the facts stay in memory, the next process computes them again
      }
    }
  }

  /** Drops the rows of paths not in `keep` (files gone from the graph); the number dropped. */
  retain(keep: ReadonlySet<string>): number {
    if (!this.put || !this.db.open) return 0;
    try {
      const gone = (this.db.prepare('SELECT path FROM facts').pluck().all() as string[]).filter((p) => !keep.has(p));
      const del = this.db.prepare('DELETE FROM facts WHERE path = ?');
      this.db.transaction(() => {
        for (const p of gone) del.run(p);
      })();
      return gone.length;
    } catch {
      return 0;
    }
  }

  /** Rows stored. */
  size(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM facts').get() as { n: number }).n;
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // already closed
    }
  }

  private statement(n: number): Database.Statement {
    return (this.get[n] ??= this.db.prepare(`SELECT path, hash, blob FROM facts WHERE path IN (${new Array(n).fill('?').join(',')})`));
  }
}

/**
 * A file's facts as bytes: [u32 JSON length][findings JSON][pad to 4][i32 defs count, then per
 * definition row, endRow, tokens, shingle count, shingles…], little-endian.
 */
export function encodeFacts(facts: FileFacts): Buffer {
  const json = Buffer.from(Object.keys(facts.findings).length ? JSON.stringify(facts.findings) : '');
  const head = 4 + json.length;
  const pad = (4 - (head % 4)) % 4;
  const ints = 1 + definitionsSize(facts.defs);
  const out = Buffer.alloc(head + pad + ints * 4);
  out.writeUInt32LE(json.length, 0);
  json.copy(out, 4);
  const body = new Int32Array(ints);
  let k = 0;
  body[k++] = facts.defs.length;
  k = writeDefinitions(body, k, facts.defs);
  Buffer.from(body.buffer).copy(out, head + pad);
  return out;
}

/** The facts encodeFacts wrote; the shingles are views of one Int32Array per file. */
export function decodeFacts(blob: Uint8Array): FileFacts {
  return { findings: decodeFindings(blob), defs: decodeDefs(blob) };
}

/**
 * Facts read from the table, decoded on first use of each half: a scan reads only the findings,
 * `twins` only the definitions, so a process that runs one of them never decodes the other (the
 * stdlib's rows took ~0.2 s CPU to decode whole). The bytes are dropped once both are decoded.
 */
export class StoredFacts implements FileFacts {
  #blob: Uint8Array | null;
  #findings: FileFacts['findings'] | null = null;
  #defs: FileFacts['defs'] | null = null;

  constructor(blob: Uint8Array) {
    this.#blob = blob;
  }

  get findings(): FileFacts['findings'] {
    if (!this.#findings) {
      this.#findings = decodeFindings(this.#blob!);
      if (this.#defs) this.#blob = null;
    }
    return this.#findings;
  }

  get defs(): FileFacts['defs'] {
    if (!this.#defs) {
      this.#defs = decodeDefs(this.#blob!);
      if (this.#findings) this.#blob = null;
    }
    return this.#defs;
  }
}

const NO_FINDINGS: FileFacts['findings'] = Object.freeze({}) as FileFacts['findings'];

function jsonLengthOf(blob: Uint8Array): number {
  return blob[0] | (blob[1] << 8) | (blob[2] << 16) | (blob[3] << 24);
}

function decodeFindings(blob: Uint8Array): FileFacts['findings'] {
  const jsonLength = jsonLengthOf(blob);
  if (!jsonLength) return NO_FINDINGS;
  return JSON.parse(Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('utf8', 4, 4 + jsonLength)) as FileFacts['findings'];
}

function decodeDefs(blob: Uint8Array): FileFacts['defs'] {
  const jsonLength = jsonLengthOf(blob);
  const bytes = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const start = 4 + jsonLength + ((4 - ((4 + jsonLength) % 4)) % 4);
  // One aligned copy of the integer part (the driver's buffer may sit at any offset).
  const body = new Int32Array(new Uint8Array(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start).slice().buffer);
  const defs: FileFacts['defs'] = [];
  readDefinitions(body, 1, Math.max(0, body[0]), defs);
  return defs;
}
