import { useMemo, useState } from 'preact/hooks';
import { api, apiPath, ApiError } from '../api.ts';
import { routeHref, useApi, useDebounced } from '../hooks.ts';
import { tail } from '../format.ts';
import type { GraphNode, ImpactResult, Neighbourhood, WhyResult } from '../types.ts';
import { Choice, Empty, ErrorBox, Loading, Panel } from '../ui.tsx';
import { CodePanel } from './code.tsx';
import { GraphCanvas, ROLE_STYLE, type Overlay } from './graph-canvas.tsx';

export const NEIGHBOURHOOD_LIMIT = 60;

export function GraphView({ params }: { params: URLSearchParams }) {
  const center = params.get('node') ?? undefined;
  const filePath = params.get('path') ?? undefined;
  const fileLine = params.get('line') ? Number(params.get('line')) : undefined;
  const [picked, setPicked] = useState<string | undefined>(undefined);
  const [overlay, setOverlay] = useState<{ key: string; overlay: Overlay; result: ImpactResult | WhyResult } | undefined>(undefined);
  const nb = useApi<Neighbourhood>(center ? apiPath('graph/neighbourhood', { node: center, limit: NEIGHBOURHOOD_LIMIT }) : null, ['graph']);

  const goTo = (id: string) => {
    setPicked(undefined);
    setOverlay(undefined);
    location.hash = routeHref('graph', { node: id });
  };
  const data = nb.data && center && (nb.data.center.id === center || !nb.loading) ? nb.data : undefined;
  const nodes = useMemo(() => {
    const m = new Map<string, GraphNode>();
    if (data) {
      m.set(data.center.id, { ...data.center, role: 'center' });
      for (const n of data.nodes) if (!m.has(n.id)) m.set(n.id, n);
    }
    return m;
  }, [data]);
  const selected = picked && nodes.has(picked) ? nodes.get(picked) : data ? nodes.get(data.center.id) : undefined;
  const shown = overlay && data && overlay.key === data.center.id ? overlay : undefined;

  let file: { path: string; line: number | undefined } | undefined;
  if (selected?.file) file = { path: selected.file, line: selected.line ?? undefined };
  else if (filePath) file = { path: filePath, line: fileLine };

  return (
    <div class="graph-layout">
      <aside class="graph-side" aria-label="Find and list nodes">
        <SearchBox onPick={goTo} initial={center ? '' : (filePath ?? '')} />
        {data ? <NodeList data={data} selected={selected?.id} onSelect={setPicked} /> : null}
      </aside>
      <div class="graph-main">
        <ErrorBox error={nb.error} />
        {!center ? (
          <Empty>Search a node (a symbol, a file or a path) to see its neighbourhood.</Empty>
        ) : !data ? (
          nb.error ? null : <Loading what="the neighbourhood" />
        ) : (
          <>
            <GraphCanvas neighbourhood={data} overlay={shown?.overlay} selected={selected?.id} onSelect={setPicked} onCenter={goTo} />
            <Actions data={data} selected={selected} nodes={nodes} onOverlay={(o) => setOverlay(o && { ...o, key: data.center.id })} onCenter={goTo} />
            {shown ? <OverlayResult result={shown.result} kind={shown.overlay.kind} onSelect={(id) => (nodes.has(id) ? setPicked(id) : goTo(id))} /> : null}
          </>
        )}
        {file ? (
          <Panel title="Source" id="gr-source">
            <CodePanel path={file.path} line={file.line} />
          </Panel>
        ) : null}
      </div>
    </div>
  );
}

function SearchBox({ onPick, initial }: { onPick: (id: string) => void; initial: string }) {
  const [q, setQ] = useState(initial);
  const query = useDebounced(q.trim(), 200);
  const found = useApi<{ nodes: GraphNode[] }>(query ? apiPath('graph/search', { q: query, limit: 20 }) : null, ['graph']);
  return (
    <div class="search" role="search">
      <label for="node-search">Find a node</label>
      <input
        id="node-search"
        type="search"
        value={q}
        maxLength={200}
        placeholder="name, path or id"
        autocomplete="off"
        onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && found.data?.nodes[0]) onPick(found.data.nodes[0].id);
        }}
      />
      <ErrorBox error={found.error} />
      {query && found.data ? (
        found.data.nodes.length ? (
          <ul class="results" aria-label="Search results">
            {found.data.nodes.map((n) => (
              <li key={n.id}>
                <button type="button" class="node-button" onClick={() => onPick(n.id)} data-node={n.id}>
                  <span class="kind">{n.kind}</span> {n.label}
                  {n.file ? (
                    <span class="muted small">
                      {' '}
                      {n.file}
                      {n.line ? `:${n.line}` : ''}
                    </span>
                  ) : null}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <Empty>No node matches “{query}”.</Empty>
        )
      ) : null}
    </div>
  );
}

function NodeList({ data, selected, onSelect }: { data: Neighbourhood; selected: string | undefined; onSelect: (id: string) => void }) {
  const groups = new Map<string, GraphNode[]>();
  for (const n of data.nodes) {
    const role = n.id === data.center.id ? 'center' : (n.role ?? 'other');
    if (!groups.has(role)) groups.set(role, []);
    groups.get(role)!.push(n);
  }
  if (!groups.has('center')) groups.set('center', [data.center]);
  const order = Object.keys(ROLE_STYLE).filter((r) => groups.has(r));
  return (
    <nav class="node-list" aria-label="Nodes in the neighbourhood">
      {data.truncated ? <p class="notice small">More neighbours exist than shown: the strongest {data.nodes.length} are listed.</p> : null}
      {order.map((role) => (
        <section key={role}>
          <h3>
            <span class={`swatch role-${role}`} aria-hidden="true" /> {ROLE_STYLE[role as keyof typeof ROLE_STYLE].label}
            {role === 'center' ? '' : 's'} ({groups.get(role)!.length})
          </h3>
          <ul>
            {groups.get(role)!.map((n) => (
              <li key={n.id}>
                <button type="button" class="node-button" aria-pressed={n.id === selected} data-node={n.id} data-role={role} onClick={() => onSelect(n.id)}>
                  <span class="kind">{n.kind}</span> {n.label}
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}

function Actions({
  data,
  selected,
  nodes,
  onOverlay,
  onCenter,
}: {
  data: Neighbourhood;
  selected: GraphNode | undefined;
  nodes: Map<string, GraphNode>;
  onOverlay: (o: { overlay: Overlay; result: ImpactResult | WhyResult } | undefined) => void;
  onCenter: (id: string) => void;
}) {
  const [depth, setDepth] = useState(3);
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const labels = useMemo(() => [...nodes.values()].filter((n) => n.id !== data.center.id), [nodes, data]);

  const run = async (kind: 'impact' | 'why') => {
    setBusy(kind);
    setError(undefined);
    try {
      if (kind === 'impact') {
        const r = await api<ImpactResult>(apiPath('impact', { node: data.center.id, depth }));
        onOverlay({ overlay: impactOverlay(data.center.id, r), result: r });
      } else {
        const to = labels.find((n) => n.label === target || n.id === target)?.id ?? target;
        const r = await api<WhyResult>(apiPath('why', { from: data.center.id, to }));
        onOverlay({ overlay: whyOverlay(r), result: r });
      }
    } catch (e) {
      if (e instanceof ApiError) setError(e);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div class="actions" aria-label="Analyse the centre node" role="group">
      <span class="centre-name">
        Centre: <strong>{data.center.label}</strong>
      </span>
      {selected && selected.id !== data.center.id ? (
        <button type="button" onClick={() => onCenter(selected.id)}>
          Centre on {selected.label}
        </button>
      ) : null}
      <span class="group">
        <Choice label="depth " value={String(depth)} options={['1', '2', '3', '4', '5']} onChange={(v) => setDepth(Number(v))} />
        <button type="button" onClick={() => run('impact')} disabled={!!busy}>
          {busy === 'impact' ? 'Running impact…' : 'Impact'}
        </button>
      </span>
      <form
        class="group"
        onSubmit={(e) => {
          e.preventDefault();
          if (target.trim()) void run('why');
        }}
      >
        <label>
          why → <input type="text" list="why-targets" value={target} maxLength={500} placeholder="target node" onInput={(e) => setTarget((e.target as HTMLInputElement).value)} />
        </label>
        <datalist id="why-targets">
          {labels.map((n) => (
            <option key={n.id} value={n.label} />
          ))}
        </datalist>
        <button type="submit" disabled={!!busy || !target.trim()}>
          {busy === 'why' ? 'Running why…' : 'Why'}
        </button>
      </form>
      <button type="button" class="link" onClick={() => onOverlay(undefined)}>
        Clear marks
      </button>
      <ErrorBox error={error} />
    </div>
  );
}

export function impactOverlay(center: string, r: ImpactResult): Overlay {
  const nodes = new Map<string, number>();
  const edges: Overlay['edges'] = [];
  for (const d of r.direct ?? []) {
    nodes.set(d.id, 1);
    edges.push({ source: d.id, target: center, relation: d.relation });
  }
  for (const t of r.transitive?.entries ?? []) if (!nodes.has(t.id)) nodes.set(t.id, 2);
  return { kind: 'impact', nodes, edges };
}

export function whyOverlay(r: WhyResult): Overlay {
  const nodes = new Map<string, number>();
  const edges: Overlay['edges'] = [];
  r.paths.forEach((p, i) => {
    for (const s of p.steps) {
      for (const id of [s.from, s.to]) nodes.set(id, Math.min(nodes.get(id) ?? 9, i === 0 ? 1 : 2));
      const forward = s.direction !== 'backward';
      edges.push({ source: forward ? s.from : s.to, target: forward ? s.to : s.from, relation: s.relation });
    }
  });
  return { kind: 'why', nodes, edges };
}

function OverlayResult({ result, kind, onSelect }: { result: ImpactResult | WhyResult; kind: 'impact' | 'why'; onSelect: (id: string) => void }) {
  if (kind === 'impact') {
    const r = result as ImpactResult;
    return (
      <Panel title={`Impact of ${r.node?.label ?? ''}`} id="gr-impact">
        <p>
          {r.affected} affected node{r.affected === 1 ? '' : 's'} ({r.direct.length} direct listed, {r.transitive.count} further), {r.other_files} other file{r.other_files === 1 ? '' : 's'}.
        </p>
        <ul class="plain impact-list">
          {r.direct.map((d) => (
            <li key={d.id}>
              <button type="button" class="link" onClick={() => onSelect(d.id)}>
                {tail(d.id)}
              </button>{' '}
              <span class="muted">
                {d.relation}
                {d.line ? ` · line ${d.line}` : ''} · direct
              </span>
            </li>
          ))}
          {r.transitive.entries.map((t) => (
            <li key={t.id}>
              <button type="button" class="link" onClick={() => onSelect(t.id)}>
                {tail(t.id)}
              </button>{' '}
              <span class="muted">depth {t.depth}</span>
            </li>
          ))}
        </ul>
      </Panel>
    );
  }
  const r = result as WhyResult;
  return (
    <Panel title={`Why ${r.source.label} → ${r.target.label}`} id="gr-why">
      {r.found ? (
        <ol class="why-paths">
          {r.paths.map((p, i) => (
            <li key={i}>
              <span class="muted">
                {p.hops} hop{p.hops === 1 ? '' : 's'} · strength {p.strength}
              </span>
              <ul class="plain">
                {p.steps.map((s, j) => (
                  <li key={j}>{s.says ?? `${tail(s.from)} ${s.relation} ${tail(s.to)}`}</li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      ) : (
        <Empty>{r.note ?? 'No path found.'}</Empty>
      )}
    </Panel>
  );
}
