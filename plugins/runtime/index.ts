/**
 * The runtime family: what the code does at run time, from OpenTelemetry spans mapped onto the graph
 * (heat, latency, errors), persisted per workspace or agent with a decay (overlay-book.ts).
 */
import { definePlugin } from '../../core/index.ts';
import { runtimeOverlayVerb } from './verbs/runtime_overlay.ts';

export default definePlugin({
  name: 'runtime',
  version: '0.1.0',
  description: 'Runtime overlay: OpenTelemetry spans mapped onto graph nodes.',
  requires: ['graph'],
  apply(ctx) {
    ctx.registerVerb(runtimeOverlayVerb);
  },
});
