/**
 * The store's `meta` table: the committed generation (which other processes poll to see new
 * commits) and graph-level facts recorded by the last ingest.
 */
import type Database from 'better-sqlite3';
import { STORE_SCHEMA_VERSION } from './store-schema.ts';

/** Graph-level facts kept beside the files. */
export interface StoreMeta {
  generation: number;
  ingestedAt: number | null;
  root: string | null;
  parserVersion: string | null;
  gitHead: string | null;
  resolverConfig: string | null;
  schemaVersion: number;
}

/** Reads and writes the `meta` key/value rows. */
export class MetaTable {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      all: db.prepare('SELECT key, value FROM meta'),
      generation: db.prepare(`SELECT value FROM meta WHERE key = 'generation'`).pluck(),
      set: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      bumpGeneration: db.prepare(`UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation' RETURNING CAST(value AS INTEGER)`).pluck(),
    };
  }

  /** The committed generation. */
  generation(): number {
    return Number(this.stmts.generation.get());
  }

  /** Increments the generation (inside the caller's write transaction) and returns the new one. */
  bumpGeneration(): number {
    return Number(this.stmts.bumpGeneration.get());
  }

  /** Sets one meta key. */
  set(key: string, value: string): void {
    this.stmts.set.run(key, value);
  }

  /** Every meta fact, with defaults for keys never written. */
  read(): StoreMeta {
    const m = new Map((this.stmts.all.all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const num = (k: string): number | null => (m.has(k) ? Number(m.get(k)) : null);
    return {
      generation: num('generation') ?? 0,
      ingestedAt: num('ingested_at'),
      root: m.get('root') ?? null,
      parserVersion: m.get('parser_version') ?? null,
      gitHead: m.get('git_head') ?? null,
      resolverConfig: m.get('resolver_config') ?? null,
      schemaVersion: num('schema_version') ?? STORE_SCHEMA_VERSION,
    };
  }
}
