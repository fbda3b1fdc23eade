import { useState } from 'preact/hooks';
import { apiPath } from '../api.ts';
import { routeHref, useApi, useDebounced } from '../hooks.ts';
import type { Claim, Memory, Mission } from '../types.ts';
import { Badge, Choice, Empty, ErrorBox, Loading, Panel, Time } from '../ui.tsx';

const FRESH_TONE = { fresh: 'ok', stale: 'bad', unknown: 'info' } as const;

export function MemoryView() {
  const [q, setQ] = useState('');
  const [scope, setScope] = useState('');
  const [state, setState] = useState('all');
  const query = useDebounced(q.trim(), 250);
  const { data, error, loading } = useApi<Memory>(apiPath('memory', { q: query, scope, state, limit: 200 }), ['memory', 'graph']);
  return (
    <div class="grid memory">
      <Panel title="Claims" id="mem-claims">
        <form class="filters" role="search" aria-label="Filter claims" onSubmit={(e) => e.preventDefault()}>
          <label>
            Search
            <input type="search" name="q" value={q} placeholder="text, path, author…" maxLength={200} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
          </label>
          <Choice label="Scope" name="scope" value={scope} options={[['', 'all'], 'agent', 'project', 'team']} onChange={setScope} />
          <Choice label="Freshness" name="state" value={state} options={['all', 'fresh', 'stale']} onChange={setState} />
          <span class="muted" role="status">
            {loading ? 'loading…' : data ? `${data.claims.length} claim${data.claims.length === 1 ? '' : 's'}` : ''}
          </span>
        </form>
        <ErrorBox error={error} />
        {!data ? (
          error ? null : <Loading what="claims" />
        ) : data.claims.length ? (
          <ul class="claims">
            {data.claims.map((c) => (
              <ClaimItem key={c.id} claim={c} />
            ))}
          </ul>
        ) : (
          <Empty>No claim matches.</Empty>
        )}
      </Panel>
      <Panel title="Missions" id="mem-missions">
        {!data ? null : data.missions.length ? (
          <ul class="missions">
            {data.missions.map((m) => (
              <MissionItem key={m.id} mission={m} />
            ))}
          </ul>
        ) : (
          <Empty>No missions.</Empty>
        )}
      </Panel>
    </div>
  );
}

function ClaimItem({ claim }: { claim: Claim }) {
  const stale = claim.freshness.state === 'stale';
  return (
    <li class={`claim${stale ? ' claim-stale' : ''}`} data-claim={claim.id} data-freshness={claim.freshness.state}>
      <p class="claim-text">{claim.text}</p>
      <div class="meta">
        <Badge tone={FRESH_TONE[claim.freshness.state] ?? 'info'}>{claim.freshness.state}</Badge>
        <Badge tone="scope">{claim.scope}</Badge>
        <span>by {claim.author}</span>
        <Time at={claim.created_at} />
        <code class="muted" title="claim id">{claim.id}</code>
      </div>
      {claim.evidence.length ? (
        <ul class="evidence" aria-label="Evidence">
          {claim.evidence.map((e, i) => (
            <li key={i}>
              <a href={routeHref('graph', { path: e.path, line: e.line ?? undefined, node: e.node_id })}>
                {e.path}
                {e.line ? `:${e.line}${e.end_line && e.end_line !== e.line ? `-${e.end_line}` : ''}` : ''}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {stale && claim.freshness.changed.length ? (
        <div class="changed">
          <strong>What changed:</strong>
          <ul>
            {claim.freshness.changed.map((c, i) => (
              <li key={i}>
                <code>{c.path}</code> {c.what}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </li>
  );
}

/** A budget as "calls 3 / 12 · tokens …", whatever shape the server sends. */
function budgetText(budget: unknown): string {
  if (budget === null || budget === undefined) return '';
  if (typeof budget !== 'object') return String(budget);
  return Object.entries(budget as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && v !== false)
    .map(([k, v]) => {
      if (v === true) return k;
      if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        const used = o.used ?? o.spent;
        const limit = o.limit ?? o.max ?? o.total;
        if (used !== undefined && limit !== undefined) return `${k} ${used} / ${limit}`;
        return `${k} ${JSON.stringify(v)}`;
      }
      return `${k} ${String(v)}`;
    })
    .join(' · ');
}

function MissionItem({ mission }: { mission: Mission }) {
  const budget = budgetText(mission.budget);
  return (
    <li class="mission" data-mission={mission.id}>
      <div class="mission-head">
        <strong>{mission.title}</strong>
        <Badge tone={mission.status === 'open' || mission.status === 'active' ? 'info' : 'muted'}>{mission.status}</Badge>
        <span>owner {mission.owner}</span>
        {mission.mode ? <span class="muted">{mission.mode}</span> : null}
      </div>
      {budget ? <div class="muted">budget: {budget}</div> : null}
      <details>
        <summary>
          {mission.events.length} event{mission.events.length === 1 ? '' : 's'}
        </summary>
        <ol class="events">
          {mission.events.map((e, i) => (
            <li key={i}>
              <Time at={e.at} /> <code>{e.kind}</code> {e.text}
            </li>
          ))}
        </ol>
      </details>
    </li>
  );
}
