import { useContext, useState } from 'preact/hooks';
import { api, apiPath, ApiError } from '../api.ts';
import { ServerInfo } from '../context.ts';
import { useApi } from '../hooks.ts';
import type { Alert, Lock } from '../types.ts';
import { Badge, Choice, Empty, ErrorBox, Loading, Panel, Time } from '../ui.tsx';

const SEVERITY_TONE: Record<string, string> = { error: 'bad', warning: 'warn', info: 'info' };

export function LocksView() {
  return (
    <div class="grid locks">
      <LocksPanel />
      <AlertsPanel />
    </div>
  );
}

function LocksPanel() {
  const { data, error } = useApi<{ locks: Lock[] }>('api/locks', ['lock']);
  return (
    <Panel title="Locks" id="lk-locks">
      <ErrorBox error={error} />
      {!data ? (
        error ? null : <Loading what="locks" />
      ) : data.locks.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Lock</th>
                <th scope="col">Owner</th>
                <th scope="col">Scope</th>
                <th scope="col">Region</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Overlaps</th>
              </tr>
            </thead>
            <tbody>
              {data.locks.map((l) => (
                <tr key={l.id} data-lock={l.id} class={l.overlaps.length ? 'row-warn' : undefined}>
                  <td><code>{l.id}</code></td>
                  <td>{l.owner}</td>
                  <td>{l.scope}</td>
                  <td>
                    <ul class="plain">
                      {l.paths.slice(0, 6).map((p) => (
                        <li key={p}><code>{p}</code></li>
                      ))}
                      {l.paths.length > 6 ? <li class="muted">+{l.paths.length - 6} more files</li> : null}
                    </ul>
                    <span class="muted">{l.node_ids.length} node{l.node_ids.length === 1 ? '' : 's'}</span>
                  </td>
                  <td><Time at={l.created_at} /></td>
                  <td>{l.expires_at ? <Time at={l.expires_at} /> : <span class="muted">never</span>}</td>
                  <td>
                    {l.overlaps.length ? (
                      <span>
                        <Badge tone="warn">overlaps</Badge>{' '}
                        {l.overlaps.map((o, i) => (
                          <span key={o}>
                            {i ? ', ' : ''}
                            <code>{o}</code>
                          </span>
                        ))}
                      </span>
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Empty>No locks held.</Empty>
      )}
    </Panel>
  );
}

function AlertsPanel() {
  const server = useContext(ServerInfo)?.server;
  const [which, setWhich] = useState<'open' | 'all'>('open');
  const { data, error, reload } = useApi<{ alerts: Alert[] }>(apiPath('alerts', { state: which }), ['alert']);
  const [refused, setRefused] = useState<string | undefined>(undefined);
  const [ackError, setAckError] = useState<ApiError | undefined>(undefined);
  const [pending, setPending] = useState<string | undefined>(undefined);

  const readOnly = server?.read_only === true;
  const blocked = readOnly
    ? 'This server is read-only: alerts cannot be acknowledged here.'
    : server?.can_write === false
      ? 'Your token has no write right: alerts cannot be acknowledged with it.'
      : refused;

  const ack = async (id: string) => {
    setPending(id);
    setAckError(undefined);
    try {
      await api(`api/alerts/${encodeURIComponent(id)}/ack`, { method: 'POST', body: {} });
      reload();
    } catch (e) {
      if (e instanceof ApiError && e.status === 403) setRefused(`The server refused: ${e.message}${e.hint ? ` ${e.hint}` : ''}`);
      else if (e instanceof ApiError) setAckError(e);
    } finally {
      setPending(undefined);
    }
  };

  return (
    <Panel
      title="Alerts"
      id="lk-alerts"
      actions={
        <Choice inline label="Show" value={which} options={['open', 'all'] as const} onChange={setWhich} />
      }
    >
      <ErrorBox error={error ?? ackError} />
      {blocked ? (
        <p class="notice" id="ack-blocked" role="note">
          {blocked}
        </p>
      ) : null}
      {!data ? (
        error ? null : <Loading what="alerts" />
      ) : data.alerts.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Severity</th>
                <th scope="col">Alert</th>
                <th scope="col">Subject</th>
                <th scope="col">When</th>
                <th scope="col">Acknowledged by</th>
                <th scope="col"><span class="sr-only">Action</span></th>
              </tr>
            </thead>
            <tbody>
              {data.alerts.map((a) => (
                <tr key={a.id} data-alert={a.id}>
                  <td>
                    <Badge tone={SEVERITY_TONE[a.severity] ?? 'info'}>{a.severity}</Badge>
                    {a.status === 'resolved' ? (
                      <>
                        {' '}
                        <Badge tone="muted">resolved</Badge>
                      </>
                    ) : null}
                  </td>
                  <td>
                    <div>{a.message}</div>
                    <span class="muted">
                      {a.kind} · {a.source}
                    </span>
                  </td>
                  <td>{a.subject ? <code class="wrap">{a.subject}</code> : null}</td>
                  <td><Time at={a.at} /></td>
                  <td>{a.acked_by.length ? a.acked_by.join(', ') : <span class="muted">nobody</span>}</td>
                  <td>
                    <button type="button" disabled={!!blocked || pending === a.id} aria-describedby={blocked ? 'ack-blocked' : undefined} title={blocked} onClick={() => ack(a.id)}>
                      Ack
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <Empty>{which === 'open' ? 'No open alerts.' : 'No alerts.'}</Empty>
      )}
    </Panel>
  );
}
