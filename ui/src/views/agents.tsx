import { useState } from 'preact/hooks';
import { useApi } from '../hooks.ts';
import { ms, num } from '../format.ts';
import type { AgentStats, Agents } from '../types.ts';
import { Badge, Empty, ErrorBox, Loading, Panel, Time } from '../ui.tsx';

const OUTCOME_TONE = { ok: 'ok', refused: 'warn', error: 'bad' } as const;

export function AgentsView() {
  const { data, error } = useApi<Agents>('api/agents', ['call']);
  const [picked, setPicked] = useState<string | undefined>(undefined);
  if (!data) return error ? <ErrorBox error={error} /> : <Loading what="agents" />;
  const selected = data.agents.find((a) => a.agent_id === picked) ?? data.agents[0];
  return (
    <div class="grid agents">
      <ErrorBox error={error} />
      <Panel title="Agents" id="ag-agents">
        {data.agents.length ? (
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Calls per agent; pick one to see its verbs and last calls</caption>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col" class="n">Calls</th>
                  <th scope="col" class="n">Refused</th>
                  <th scope="col" class="n">Errors</th>
                  <th scope="col" class="n">Tokens</th>
                  <th scope="col" class="n">p50</th>
                  <th scope="col" class="n">p99</th>
                </tr>
              </thead>
              <tbody>
                {data.agents.map((a) => (
                  <tr key={a.agent_id} data-agent={a.agent_id} class={a === selected ? 'row-selected' : undefined}>
                    <th scope="row">
                      <button type="button" class="link" aria-pressed={a === selected} onClick={() => setPicked(a.agent_id)}>
                        {a.agent_id}
                      </button>
                    </th>
                    <td class="n" data-col="calls">{num(a.calls)}</td>
                    <td class="n">{a.refusals ? <Badge tone="warn">{num(a.refusals)}</Badge> : '0'}</td>
                    <td class="n">{a.errors ? <Badge tone="bad">{num(a.errors)}</Badge> : '0'}</td>
                    <td class="n">{num(a.tokens_returned)}</td>
                    <td class="n">{ms(a.p50_ms)}</td>
                    <td class="n">{ms(a.p99_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Empty>No agent has called a verb yet.</Empty>
        )}
      </Panel>
      <Panel title="Sessions" id="ag-sessions">
        {data.sessions.length ? (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Transport</th>
                  <th scope="col">Connected</th>
                  <th scope="col">Last seen</th>
                  <th scope="col" class="n">Calls</th>
                </tr>
              </thead>
              <tbody>
                {data.sessions.map((s) => (
                  <tr key={s.session_id}>
                    <td><code title={s.session_id}>{s.session_id.slice(0, 8)}</code></td>
                    <td>{s.agent_id ?? <span class="muted">not yet bound</span>}</td>
                    <td>{s.transport}</td>
                    <td><Time at={s.connected_at} /></td>
                    <td><Time at={s.last_seen_at} /></td>
                    <td class="n">{num(s.calls)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Empty>No connected sessions.</Empty>
        )}
      </Panel>
      {selected ? <AgentDetail agent={selected} /> : null}
    </div>
  );
}

function AgentDetail({ agent }: { agent: AgentStats }) {
  return (
    <>
      <Panel title={`Verbs called by ${agent.agent_id}`} id="ag-verbs">
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Verb</th>
                <th scope="col" class="n">Calls</th>
                <th scope="col" class="n">p50</th>
                <th scope="col" class="n">p99</th>
                <th scope="col" class="n">Tokens</th>
              </tr>
            </thead>
            <tbody>
              {agent.by_verb.map((v) => (
                <tr key={v.verb}>
                  <td><code>{v.verb}</code></td>
                  <td class="n">{num(v.calls)}</td>
                  <td class="n">{ms(v.p50_ms)}</td>
                  <td class="n">{ms(v.p99_ms)}</td>
                  <td class="n">{num(v.tokens)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Panel>
      <Panel title={`Last calls of ${agent.agent_id}`} id="ag-last">
        {agent.last_calls.length ? (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Verb</th>
                  <th scope="col">Outcome</th>
                  <th scope="col" class="n">Time</th>
                  <th scope="col" class="n">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {agent.last_calls.map((c, i) => (
                  <tr key={i}>
                    <td><Time at={c.at} /></td>
                    <td><code>{c.verb}</code></td>
                    <td><Badge tone={OUTCOME_TONE[c.outcome] ?? 'info'}>{c.outcome}</Badge></td>
                    <td class="n">{ms(c.ms)}</td>
                    <td class="n">{num(c.tokens)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Empty>No calls yet.</Empty>
        )}
      </Panel>
    </>
  );
}
