// The dashboard's one door to the server: JSON requests under api/ (relative to the page, so the
// dashboard works under any mount point), the bearer token kept for this tab only (sessionStorage),
// and one signal when the server asks for a token again.

const TOKEN_KEY = 'm1nd.dashboard.token';

/** An error answer of the API ({error:{code,message,hint}}) or a failed request. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

let token = readStored();
const authListeners = new Set<() => void>();

function readStored(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

export function currentToken(): string {
  return token;
}

/** Uses `value` for the next requests; `keep` stores it for the tab once the server accepted it. */
export function setToken(value: string, keep: boolean): void {
  token = value;
  try {
    if (keep && value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage refused (private mode): the token lives in memory for this page only.
  }
}

/** Called whenever the server answers 401: the app shows the token prompt and nothing else. */
export function onAuthRequired(listener: () => void): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

export function authRequired(): void {
  setToken('', false);
  for (const listener of authListeners) listener();
}

export function authHeaders(): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** `api/<path>` with its query; undefined and empty values are left out. */
export function apiPath(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `api/${path}${qs ? `?${qs}` : ''}`;
}

export async function api<T>(path: string, init: { method?: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: {
        Accept: 'application/json',
        ...authHeaders(),
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: init.signal,
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'The server did not answer.', 'Check that `m1nd serve --http` is still running, then reload.');
  }
  const body = await res.json().catch(() => undefined);
  if (res.status === 401) {
    authRequired();
    throw new ApiError(401, 'UNAUTHORIZED', 'This server needs a token.');
  }
  if (!res.ok) {
    const e = (body as { error?: { code?: string; message?: string; hint?: string } } | undefined)?.error;
    throw new ApiError(res.status, e?.code ?? `HTTP_${res.status}`, e?.message ?? `${res.status} ${res.statusText}`, e?.hint);
  }
  return body as T;
}
