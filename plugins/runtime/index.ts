/**
 * The runtime family: what the code does at run time, from OpenTelemetry spans mapped onto the graph
 * (heat, latency, errors), persisted per workspace or agent with a decay (overlay-book.ts), and the
 * `runtime_heat` boost overlay seek/activate/panoramic apply when asked (heat-boosts.ts).
 */
import { definePlugin } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { HEAT_OVERLAY, heatBoosts } from './heat-boosts.ts';
import { runtimeOverlayVerb } from './verbs/runtime_overlay.ts';

export default definePlugin({
  name: 'runtime',
  version: '0.1.0',
  description: 'Runtime overlay: OpenTelemetry spans mapped onto graph nodes.',
  requires: ['graph'],
  apply(ctx) {
    ctx.registerVerb(runtimeOverlayVerb);
    // Ranking verbs add the heat when a call asks for it (runtime_heat: true).
    const graph = ctx.service<GraphService>('graph');
    graph.boosts.provide(HEAT_OVERLAY, (agentId) => heatBoosts({ graph, session: ctx.session }, agentId));
  },
});
