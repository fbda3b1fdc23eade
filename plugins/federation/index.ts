/**
 * The federation family: the workspace's ties to repositories beside it — `external_references`
 * (what the workspace's own files name outside its root) and `federate` (several roots ingested by
 * the same engine and linked; roots outside the workspace only under M1ND_ALLOW_ROOTS / allowRoots),
 * served to the calling agent's graph verbs as one namespaced graph until `federation_view` switches back.
 */
import { definePlugin } from '../../core/index.ts';
import { externalReferencesVerb } from './verbs/external_references.ts';
import { federateVerb } from './verbs/federate.ts';
import { federateAutoVerb } from './verbs/federate_auto.ts';
import { federationViewVerb } from './verbs/federation_view.ts';

export default definePlugin({
  name: 'federation',
  version: '0.1.0',
  description: 'Ties between the workspace and repositories beside it.',
  requires: ['graph'],
  apply(ctx) {
    ctx.registerVerb(externalReferencesVerb);
    ctx.registerVerb(federateVerb(ctx.settings));
    ctx.registerVerb(federateAutoVerb(ctx.settings));
    ctx.registerVerb(federationViewVerb(ctx.settings));
  },
});
