/**
 * An example curated bundle for code review: enable it after `default` and the `review` tier
 * advertises what a reviewer needs (essential plus blast radius, paths, diagrams and drift
 * checks), and becomes the default tier. Enable with `bundles: ['default', 'review']`.
 */
import { defineBundle } from '../../core/index.ts';

export default defineBundle({
  name: 'review',
  description: 'Reviewer tier: essential verbs plus impact, paths, diagrams and freshness checks.',
  tier: 'review',
  tiers: {
    review: {
      extends: 'essential',
      add: ['metrics', 'glob', 'batch_view'],
      remove: ['session_handshake'],
      description: 'What a reviewer reaches for first.',
    },
  },
});
