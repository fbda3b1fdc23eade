/** What every dashboard route reads from: the services it reuses, the plugin's statistics and feed. */
import type { CatalogView, HostSettings, HttpRouteResponse, Logger } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { LockService } from '../lock/api.ts';
import type { MemoryService } from '../memory/api.ts';
import type { StateService } from '../state/api.ts';
import type { DashboardFeed } from './feed.ts';
import type { CallStats } from './stats.ts';

export interface DashboardContext {
  graph: GraphService;
  state: StateService;
  memory: MemoryService;
  locks: LockService;
  catalog: CatalogView;
  settings: Readonly<HostSettings>;
  stats: CallStats;
  feed: DashboardFeed;
  log: Logger;
  /** The folder of the built browser app (dist/ui), or undefined to find it next to the package. */
  assetsDir?: string;
  /** The plugin's own version. */
  version: string;
}

/** Headers of every dashboard response (the contract's CSP and companions). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
});

/** A JSON answer with the dashboard's headers. */
export function json(value: unknown, status = 200): HttpRouteResponse {
  return { status, json: value, headers: { ...SECURITY_HEADERS } };
}

/** An integer query parameter clamped to [min, max], or the default when absent or not a number. */
export function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  const n = raw === null || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.trunc(n))) : fallback;
}

/** A text query parameter, trimmed and clipped (every input is bounded). */
export function textParam(query: URLSearchParams, name: string, max = 500): string {
  return (query.get(name) ?? '').trim().slice(0, max);
}

/** ISO time of an epoch-ms value, or null. */
export function iso(ms: number | null | undefined): string | null {
  return typeof ms === 'number' && ms > 0 ? new Date(ms).toISOString() : null;
}
