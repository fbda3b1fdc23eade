/** What the PostgreSQL team store (postgres.ts) needs around its connection: the driver, loaded on first use, a URL fit to show, and which errors mean the database is unreachable. */
import { createRequire } from 'node:module';
import type pg from 'pg';

/** The URL without credentials or query (what may be shown or logged). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'postgres://(unparsable url)';
  }
}

// node-postgres is required when a team store is configured, not at every process's start (its
// evaluation costs tens of ms).
const require = createRequire(import.meta.url);
let pgModule: typeof pg | undefined;
export function pgLib(): typeof pg {
  pgModule ??= require('pg') as typeof pg;
  return pgModule;
}

/** True for errors that mean "the database is not reachable" (as opposed to a bad statement). */
export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (typeof e?.code === 'string' && (e.code.startsWith('08') || e.code.startsWith('57P') || /^E[A-Z]+$/.test(e.code))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Query read timeout|connect ECONN/i.test(e?.message ?? '');
}
