/** GET /api/memory?q=&scope=&state=&limit=: claims the caller may read, with computed freshness; missions with events and budgets. */
import { ErrorCodes, httpError, type HttpRouteRequest, type HttpRouteResponse } from '../../../core/index.ts';
import { budgetReport, MISSIONS_NAMESPACE, type Claim, type Freshness, type Mission } from '../../memory/api.ts';
import { intParam, iso, json, textParam, type DashboardContext } from '../context.ts';

const SCOPES = ['agent', 'project', 'team'] as const;
const STATES = ['fresh', 'stale', 'all'] as const;
/** Claims checked per slice (each reads its evidence files) before yielding the event loop. */
const FRESHNESS_SLICE = 64;
const MISSION_EVENTS = 20;
const MAX_MISSIONS = 50;

export async function memory(ctx: DashboardContext, req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const q = textParam(req.query, 'q').toLowerCase();
  const scope = textParam(req.query, 'scope');
  const state = textParam(req.query, 'state') || 'all';
  const limit = intParam(req.query, 'limit', 100, 1, 500);
  if (scope && !(SCOPES as readonly string[]).includes(scope)) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, `unknown scope ${JSON.stringify(scope)}`, `use one of ${SCOPES.join(', ')} or leave it out`);
  if (!(STATES as readonly string[]).includes(state)) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, `unknown state ${JSON.stringify(state)}`, `use one of ${STATES.join(', ')}`);
  // Nothing ingested yet: no store to read (reading must never create one).
  if (!ctx.graph.engine.storeExists() && ctx.state.team.kind === 'sqlite') return json({ claims: [], missions: [] });

  const visible = await ctx.memory.claims.visible(req.caller.agentId, scope ? [scope as (typeof SCOPES)[number]] : [...SCOPES]);
  const matching = visible
    .filter((c) => !c.superseded_by && (!q || matches(q, c.text, c.topic, c.author, c.title)))
    .sort((a, b) => b.created_at - a.created_at);
  const claims: ReturnType<typeof claimView>[] = [];
  for (let i = 0; i < matching.length && claims.length < limit; i += FRESHNESS_SLICE) {
    const slice = matching.slice(i, i + FRESHNESS_SLICE);
    const fresh = ctx.memory.freshness(slice);
    for (const c of slice) {
      const view = claimView(c, fresh.get(c.id)!);
      if (state === 'all' || view.freshness.state === state) claims.push(view);
      if (claims.length >= limit) break;
    }
    await new Promise((r) => setImmediate(r));
  }
  return json({ claims, missions: await missions(ctx, q) });
}

function matches(q: string, ...fields: (string | undefined)[]): boolean {
  return fields.some((f) => f !== undefined && f.toLowerCase().includes(q));
}

/** A claim as the contract shows it: text verbatim (the browser renders it as text). */
function claimView(c: Claim, f: Freshness) {
  const labelled = new Map(c.evidence.map((a) => [a.kind === 'node' ? a.node! : a.kind === 'lines' ? `${a.path}:${a.lines![0]}-${a.lines![1]}` : a.path, a.path]));
  return {
    id: c.id,
    text: c.text,
    kind: c.kind,
    scope: c.scope,
    author: c.author,
    created_at: iso(c.created_at),
    ...(c.topic ? { topic: c.topic } : {}),
    evidence: c.evidence.map((a) => ({ path: a.path, ...(a.node ? { node_id: a.node } : {}), ...(a.lines ? { line: a.lines[0], end_line: a.lines[1] } : {}) })),
    freshness: {
      state: f.state === 'unanchored' ? 'unknown' : f.state,
      changed: f.changed.map((ch) => ({ path: labelled.get(ch.evidence) ?? ch.evidence, evidence: ch.evidence, what: ch.what })),
    },
  };
}

async function missions(ctx: DashboardContext, q: string) {
  const rows = await ctx.state.team.list<Mission>(MISSIONS_NAMESPACE, 'm_', 2000);
  return rows
    .map((r) => r.value)
    .filter((m) => !q || matches(q, m.task, m.agent_id, m.id))
    .sort((a, b) => Number(a.status === 'closed') - Number(b.status === 'closed') || b.started_at - a.started_at)
    .slice(0, MAX_MISSIONS)
    .map((m) => ({
      id: m.id,
      title: m.task,
      status: m.status,
      owner: m.agent_id,
      agents: m.agents,
      mode: m.mode,
      risk: m.risk,
      started_at: iso(m.started_at),
      budget: budgetReport(m),
      events: m.events.slice(-MISSION_EVENTS).reverse().map((e) => ({ at: iso(e.at), kind: e.evidence_class, text: e.outcome ? `${e.action}: ${e.outcome}` : e.action, refs: e.refs })),
    }));
}
