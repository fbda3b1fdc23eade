import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api.ts';
import { subscribe, type EventKind } from './events.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => void;
}

/** Refetch delay after a live event: the events of one window make one request. */
export const LIVE_DEBOUNCE_MS = 250;

/**
 * GETs `path` (null: nothing yet), keeps the last answer while a new one loads, and refetches
 * (debounced) when one of `kinds` arrives on the live feed.
 */
export function useApi<T>(path: string | null, kinds: readonly EventKind[] = [], windowMs = LIVE_DEBOUNCE_MS): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    if (path === null) {
      setData(undefined);
      setLoading(false);
      return;
    }
    const ctl = new AbortController();
    setLoading(true);
    api<T>(path, { signal: ctl.signal })
      .then((d) => {
        setData(d);
        setError(undefined);
      })
      .catch((e: unknown) => {
        if ((e as Error).name !== 'AbortError') setError(e instanceof ApiError ? e : new ApiError(0, 'CLIENT', String(e)));
      })
      .finally(() => {
        if (!ctl.signal.aborted) setLoading(false);
      });
    return () => ctl.abort();
  }, [path, tick]);

  useLive(kinds, reload, windowMs);
  return { data, error, loading, reload };
}

/**
 * Calls `onEvent` once per `windowMs` after events of one of `kinds` arrive: the first event opens
 * the window, later ones join it (a steady stream of calls still refreshes, unlike a debounce that
 * restarts on every event).
 */
export function useLive(kinds: readonly EventKind[], onEvent: () => void, windowMs = LIVE_DEBOUNCE_MS): void {
  const latest = useRef(onEvent);
  latest.current = onEvent;
  const key = kinds.join(',');
  useEffect(() => {
    if (!key) return;
    const wanted = new Set(key.split(','));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = subscribe((e) => {
      if (!wanted.has(e.kind) || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        latest.current();
      }, windowMs);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [key, windowMs]);
}

/** The value after it stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export interface Route {
  view: string;
  params: URLSearchParams;
}

function parseHash(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [view, query] = raw.split('?', 2);
  return { view: view || 'overview', params: new URLSearchParams(query ?? '') };
}

/** Hash routes: `#/agents`, `#/graph?node=…`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const on = () => setRoute(parseHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function routeHref(view: string, params: Record<string, string | number | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, String(v));
  const qs = p.toString();
  return `#/${view}${qs ? `?${qs}` : ''}`;
}
