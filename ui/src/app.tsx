// The shell: token gate, header with the view tabs and the live indicator, and the current view.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, currentToken, onAuthRequired, setToken } from './api.ts';
import { onLiveStatus, startLive, stopLive, liveStatus, type LiveStatus } from './events.ts';
import { useApi, useRoute } from './hooks.ts';
import type { Overview } from './types.ts';
import { ServerInfo } from './context.ts';
import { TokenPrompt } from './token-prompt.tsx';
import { OverviewView } from './views/overview.tsx';
import { AgentsView } from './views/agents.tsx';
import { MemoryView } from './views/memory.tsx';
import { LocksView } from './views/locks.tsx';
import { GraphView } from './views/graph.tsx';

const VIEWS = [
  { id: 'overview', title: 'Overview' },
  { id: 'agents', title: 'Agents' },
  { id: 'memory', title: 'Memory' },
  { id: 'locks', title: 'Locks & alerts' },
  { id: 'graph', title: 'Graph' },
] as const;

type Gate = { state: 'checking' } | { state: 'open' } | { state: 'token'; refused: boolean } | { state: 'down'; error: ApiError };

export function App() {
  const [gate, setGate] = useState<Gate>({ state: 'checking' });

  const check = async (candidate: string | undefined) => {
    if (candidate !== undefined) setToken(candidate, false);
    try {
      await api('api/overview');
      setToken(currentToken(), true);
      setGate({ state: 'open' });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setGate({ state: 'token', refused: candidate !== undefined });
      else setGate({ state: 'down', error: e instanceof ApiError ? e : new ApiError(0, 'CLIENT', String(e)) });
    }
  };

  useEffect(() => {
    void check(undefined);
    return onAuthRequired(() => {
      stopLive();
      setGate({ state: 'token', refused: false });
    });
  }, []);

  if (gate.state === 'checking') return <main class="gate" aria-busy="true" />;
  if (gate.state === 'token') return <TokenPrompt refused={gate.refused} onSubmit={(t) => check(t)} />;
  if (gate.state === 'down')
    return (
      <main class="gate">
        <div class="error" role="alert">
          <strong>{gate.error.code}</strong>: {gate.error.message}
          {gate.error.hint ? <div class="hint">{gate.error.hint}</div> : null}
        </div>
        <button type="button" onClick={() => check(undefined)}>
          Retry
        </button>
      </main>
    );
  return <Dashboard />;
}

function Dashboard() {
  const route = useRoute();
  // Recent errors arrive as calls: a slower window keeps a busy team from refetching it constantly.
  const overview = useApi<Overview>('api/overview', ['graph', 'call', 'memory', 'lock', 'alert'], 2000);
  const [live, setLive] = useState<LiveStatus>(liveStatus());
  const mainRef = useRef<HTMLElement>(null);

  useEffect(() => {
    const off = onLiveStatus(setLive);
    startLive();
    return () => {
      off();
      stopLive();
    };
  }, []);

  const current = VIEWS.find((v) => v.id === route.view) ?? VIEWS[0];
  useEffect(() => {
    document.title = `${current.title} · m1nd`;
  }, [current.id]);

  const server = overview.data?.server;
  return (
    <ServerInfo.Provider value={overview.data}>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); mainRef.current?.focus(); }}>
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo">m1nd</span>
          <span class="workspace" title={overview.data?.workspace}>
            {overview.data?.workspace ?? ''}
          </span>
        </div>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.id}>
                <a href={`#/${v.id}`} aria-current={v.id === current.id ? 'page' : undefined}>
                  {v.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="status">
          {server?.read_only ? <span class="badge badge-warn">read-only</span> : null}
          <span class={`live live-${live}`} role="status" aria-live="polite" data-live={live}>
            {live === 'live' ? 'live' : live === 'off' ? 'offline' : live}
          </span>
        </div>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1} data-view={current.id}>
        <h1 class="sr-only">{current.title}</h1>
        {current.id === 'overview' ? <OverviewView overview={overview} /> : null}
        {current.id === 'agents' ? <AgentsView /> : null}
        {current.id === 'memory' ? <MemoryView /> : null}
        {current.id === 'locks' ? <LocksView /> : null}
        {current.id === 'graph' ? <GraphView params={route.params} /> : null}
      </main>
    </ServerInfo.Provider>
  );
}
