/**
 * GET /api/alerts?state=open|all and POST /api/alerts/:id/ack, through the daemon's own verbs
 * (alerts_list, alerts_ack) in the host's dispatch: the ack is the dashboard's only write, so the
 * read-only gate and the credential's role refuse it exactly as they refuse an agent's call.
 */
import { ErrorCodes, httpError, M1ndError, type HttpRouteRequest, type HttpRouteResponse, type InvokeResult } from '../../../core/index.ts';
import { json, textParam } from '../context.ts';

interface ListedAlert {
  id: string;
  severity: string;
  source: string;
  kind: string;
  message: string;
  path?: string;
  node?: string;
  status: string;
  raised_at: string;
  last_seen_at: string;
  acked_by: string[];
}

export async function alerts(req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const state = textParam(req.query, 'state') || 'open';
  if (state !== 'open' && state !== 'all') throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, `unknown state ${JSON.stringify(state)}`, 'use open or all');
  const listed = unwrap(await req.invoke('alerts_list', { include_acked: true, include_resolved: state === 'all', limit: 500 }));
  return json({ alerts: (listed.alerts as ListedAlert[]).map(alertView), total: listed.total, truncated: listed.truncated });
}

export async function ackAlert(req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const id = req.params.id ?? '';
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(id)) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, 'the alert id is malformed', 'alert ids come from GET /api/alerts');
  const done = unwrap(await req.invoke('alerts_ack', { alert_ids: [id] }, { as: 'caller' }));
  if (!(done.acked as string[]).includes(id)) throw httpError(404, ErrorCodes.STATE_NOT_FOUND, `no alert "${id}" you can see`, 'alert ids come from GET /api/alerts?state=all');
  const listed = unwrap(await req.invoke('alerts_list', { include_acked: true, include_resolved: true, limit: 500 }));
  const alert = (listed.alerts as ListedAlert[]).find((a) => a.id === id);
  return json({ ok: true, alert: alert ? alertView(alert) : { id } });
}

function alertView(a: ListedAlert) {
  return { id: a.id, severity: a.severity, source: a.source, kind: a.kind, message: a.message, subject: a.path ?? a.node ?? null, status: a.status, at: a.last_seen_at, raised_at: a.raised_at, acked_by: a.acked_by };
}

/** A verb's value, or its refusal as a coded error (a read-only or role refusal becomes a 403). */
export function unwrap(result: InvokeResult): Record<string, unknown> {
  if (result.ok) return result.value;
  const e = result.error;
  const forbidden = e.code === ErrorCodes.GATE_READ_ONLY || e.code === ErrorCodes.AUTH_ROLE || e.code === ErrorCodes.AUTH_AGENT_DENIED;
  throw new M1ndError(e.code as never, e.message, { hint: e.hint, ...(forbidden ? { data: { status: 403 } } : {}) });
}
