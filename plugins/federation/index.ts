/**
 * The federation family: the workspace's ties to repositories beside it. Today `external_references`
 * (what the workspace's own files name outside its root); `federate` over several roots, gated by
 * M1ND_ALLOW_ROOTS / allowRoots, is not here yet.
 */
import { definePlugin } from '../../core/index.ts';
import { externalReferencesVerb } from './verbs/external_references.ts';

export default definePlugin({
  name: 'federation',
  version: '0.1.0',
  description: 'Ties between the workspace and repositories beside it.',
  requires: ['graph'],
  apply(ctx) {
    ctx.registerVerb(externalReferencesVerb);
  },
});
