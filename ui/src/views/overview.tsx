import type { Loaded } from '../hooks.ts';
import { num } from '../format.ts';
import type { Overview } from '../types.ts';
import { Badge, Empty, ErrorBox, Loading, Panel, Stat, Time } from '../ui.tsx';

const isLoaded = (status: string) => status === 'loaded' || status === 'active';

const GRAPH_TONE = { ready: 'ok', loading: 'info', empty: 'warn' } as const;

export function OverviewView({ overview }: { overview: Loaded<Overview> }) {
  const { data, error } = overview;
  if (!data) return error ? <ErrorBox error={error} /> : <Loading what="the overview" />;
  const { server, graph, verbs, store } = data;
  const loaded = data.plugins.filter((p) => isLoaded(p.status));
  const trouble = data.plugins.filter((p) => !isLoaded(p.status));
  return (
    <div class="grid overview">
      <ErrorBox error={error} />
      <Panel title="Workspace" id="ov-workspace">
        <dl class="stats">
          <Stat label="Path" value={<code class="wrap">{data.workspace}</code>} />
          <Stat label="Server" value={`m1nd ${server.version} · ${server.transport}`} />
          <Stat label="Tier" value={server.tier} />
          <Stat label="Mode" value={server.read_only ? <Badge tone="warn">read-only</Badge> : <Badge tone="ok">read-write</Badge>} />
          <Stat label="Store" value={<span>{store.kind}{store.path_or_url_redacted ? <code class="wrap"> {store.path_or_url_redacted}</code> : null}</span>} />
          {store.error ? <Stat label="Store error" tone="warn" value={store.error} /> : null}
        </dl>
      </Panel>
      <Panel title="Graph" id="ov-graph">
        <dl class="stats">
          <Stat label="State" value={<Badge tone={GRAPH_TONE[graph.state] ?? 'info'}>{graph.state}</Badge>} />
          <Stat label="Nodes" value={<span data-testid="graph-nodes">{num(graph.nodes)}</span>} />
          <Stat label="Edges" value={num(graph.edges)} />
          <Stat label="Files" value={num(graph.files)} />
          <Stat label="Last ingest" value={<Time at={graph.last_ingest_at} />} />
          <Stat label="Stale files" value={num(graph.stale_files)} tone={graph.stale_files > 0 ? 'warn' : undefined} />
        </dl>
      </Panel>
      <Panel title="Verbs" id="ov-verbs">
        <dl class="stats">
          <Stat label="Registered" value={num(verbs.registered)} />
          <Stat label={`Advertised (${server.tier})`} value={num(verbs.advertised)} />
        </dl>
      </Panel>
      <Panel title="Plugins" id="ov-plugins">
        {data.plugins.length ? (
          <>
            <p class="muted">
              {loaded.length} loaded{trouble.length ? `, ${trouble.length} not loaded` : ''}
            </p>
            <ul class="chips" aria-label="Plugins">
              {[...trouble, ...loaded].map((p) => (
                <li key={p.name} class={isLoaded(p.status) ? undefined : 'chip-warn'}>
                  <strong>{p.name}</strong> <span class="muted">{p.version ?? ''}</span>
                  {isLoaded(p.status) ? null : (
                    <>
                      {' '}
                      <Badge tone="warn">{p.status}</Badge>
                      {p.reason ? <span class="reason"> {p.reason}</span> : null}
                    </>
                  )}
                </li>
              ))}
            </ul>
          </>
        ) : (
          <Empty>No plugins reported.</Empty>
        )}
      </Panel>
      <Panel title="Recent errors" id="ov-errors">
        {data.recent_errors.length ? (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Verb</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {data.recent_errors.map((e, i) => (
                  <tr key={i}>
                    <td><Time at={e.at} /></td>
                    <td>{e.agent ?? ''}</td>
                    <td><code>{e.verb}</code></td>
                    <td>
                      <code>{e.code}</code> {e.message}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Empty>No errors recently.</Empty>
        )}
      </Panel>
    </div>
  );
}
