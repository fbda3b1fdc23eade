/**
 * resonate, kept for m1nd compatibility: registered and callable in every tier, never advertised;
 * `help` lists it as back-compat and names activate instead.
 */
import { definePlugin } from '../../core/index.ts';
import { resonateVerb } from './resonate.ts';

export default definePlugin({
  name: 'resonate',
  version: '0.1.0',
  description: 'Back-compat resonate verb: structural modes and alike node pairs around a query.',
  requires: ['graph'],
  apply(ctx) {
    ctx.registerVerb(resonateVerb);
  },
});
