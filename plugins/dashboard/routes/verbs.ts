/** GET /api/impact?node=&depth= and GET /api/why?from=&to=: the verbs' own results, run through the host's dispatch as the dashboard's read identity. */
import { ErrorCodes, httpError, type HttpRouteRequest, type HttpRouteResponse } from '../../../core/index.ts';
import { intParam, json, textParam } from '../context.ts';
import { unwrap } from './alerts.ts';

export async function impact(req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const node = textParam(req.query, 'node', 1000);
  if (!node) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, 'node is empty', 'send ?node=<a node id>&depth=<1..10>');
  const depth = intParam(req.query, 'depth', 3, 1, 10);
  return json(unwrap(await req.invoke('impact', { node_id: node, max_depth: depth })));
}

export async function why(req: HttpRouteRequest): Promise<HttpRouteResponse> {
  const from = textParam(req.query, 'from', 1000);
  const to = textParam(req.query, 'to', 1000);
  if (!from || !to) throw httpError(400, ErrorCodes.HTTP_BAD_REQUEST, 'from and to are both needed', 'send ?from=<node id>&to=<node id>');
  return json(unwrap(await req.invoke('why', { source: from, target: to })));
}
