/**
 * The team store's schema, as an ordered list of migrations applied at start in one transaction
 * (under an advisory lock, so servers starting together apply each one once). `m1nd_schema` records
 * the versions applied; a store whose newest version is beyond this list was migrated by a newer
 * m1nd, and this server then refuses to write to it.
 */
import type { PoolClient } from 'pg';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The NOTIFY channel changes are pushed on. */
export const CHANNEL = 'm1nd_state';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'state rows',
    sql: `
      CREATE TABLE m1nd_state (
        repo text NOT NULL,
        namespace text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value jsonb NOT NULL,
        version bigint NOT NULL DEFAULT 1,
        updated_at bigint NOT NULL,
        PRIMARY KEY (repo, namespace, key)
      );`,
  },
  {
    version: 2,
    name: 'change notifications',
    // Every committed write of a row is announced (repo, namespace, key, op, the writer's application_name).
    sql: `
      CREATE FUNCTION m1nd_state_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE r m1nd_state;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        PERFORM pg_notify('${CHANNEL}', json_build_object('repo', r.repo, 'ns', r.namespace, 'key', r.key,
          'op', CASE TG_OP WHEN 'DELETE' THEN 'delete' ELSE 'put' END, 'by', current_setting('application_name'))::text);
        RETURN NULL;
      END $$;
      CREATE TRIGGER m1nd_state_changed AFTER INSERT OR UPDATE OR DELETE ON m1nd_state
        FOR EACH ROW EXECUTE FUNCTION m1nd_state_notify();`,
  },
];

export const KNOWN_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Applies the missing migrations in one transaction; returns the store's schema version after it. */
export async function migrate(client: PoolClient): Promise<number> {
  await client.query('BEGIN');
  try {
    // Servers starting at once wait here for each other; the first applies, the others find it done.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['m1nd_state.migrate']);
    await client.query('CREATE TABLE IF NOT EXISTS m1nd_schema (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM m1nd_schema');
    const current = rows[0]?.v ?? 0;
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO m1nd_schema (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
    return Math.max(current, KNOWN_VERSION);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
