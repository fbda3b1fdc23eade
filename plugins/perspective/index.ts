/**
 * The perspective family: agent-scoped navigation over the code graph, like a browser with
 * history — a focus, ranked and explained routes, checkpoints to go back to, branches to compare.
 * Perspectives belong to one agent and are stored in the workspace store (memory on read-only servers).
 */
import { definePlugin } from '../../core/index.ts';
import { perspectiveStartVerb } from './verbs/perspective_start.ts';
import { perspectiveRoutesVerb } from './verbs/perspective_routes.ts';
import { perspectiveInspectVerb } from './verbs/perspective_inspect.ts';
import { perspectivePeekVerb } from './verbs/perspective_peek.ts';
import { perspectiveFollowVerb } from './verbs/perspective_follow.ts';
import { perspectiveSuggestVerb } from './verbs/perspective_suggest.ts';
import { perspectiveAffinityVerb } from './verbs/perspective_affinity.ts';
import { perspectiveBranchVerb } from './verbs/perspective_branch.ts';
import { perspectiveBackVerb } from './verbs/perspective_back.ts';
import { perspectiveCompareVerb } from './verbs/perspective_compare.ts';
import { perspectiveListVerb } from './verbs/perspective_list.ts';
import { perspectiveCloseVerb } from './verbs/perspective_close.ts';

export const perspectiveVerbs = [
  perspectiveStartVerb,
  perspectiveRoutesVerb,
  perspectiveInspectVerb,
  perspectivePeekVerb,
  perspectiveFollowVerb,
  perspectiveSuggestVerb,
  perspectiveAffinityVerb,
  perspectiveBranchVerb,
  perspectiveBackVerb,
  perspectiveCompareVerb,
  perspectiveListVerb,
  perspectiveCloseVerb,
];

export default definePlugin({
  name: 'perspective',
  version: '0.1.0',
  description: 'Agent-scoped navigation over the code graph: focus, ranked routes, history, branches.',
  requires: ['graph'],
  apply(ctx) {
    for (const verb of perspectiveVerbs) ctx.registerVerb(verb);
    ctx.hooks.workflows.tap('perspective', (list) => [
      ...list,
      {
        name: 'navigate',
        when: 'find: explore unfamiliar code step by step from a starting point',
        steps: [
          { verb: 'perspective_start', why: 'open a perspective on the best match for your question' },
          { verb: 'perspective_routes', why: 'ranked next hops, each explained' },
          { verb: 'perspective_peek', why: 'read a target without moving' },
          { verb: 'perspective_follow', why: 'move there (perspective_back undoes)' },
          { verb: 'perspective_compare', why: 'diff two lines of exploration (perspective_branch forks one)' },
        ],
      },
    ]);
  },
});
