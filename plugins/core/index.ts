/**
 * m1nd's `core` verb family, grouped by area: ingest/ (building and storing the graph), files/
 * (reading the workspace), graph/ (lookups), analysis/ (reasoning over structure), session/
 * (what an agent has done), trails/ (saved investigations). One verb per file; each area's
 * index.ts lists its verbs.
 */
import { definePlugin } from '../../core/index.ts';
import { ingestVerb } from './ingest/ingest.ts';
import { persistVerb } from './ingest/persist.ts';
import { viewVerb } from './files/view.ts';
import { batchViewVerb } from './files/batch_view.ts';
import { globVerb } from './graph/glob.ts';
import { searchVerb } from './graph/search.ts';
import { seekVerb } from './graph/seek.ts';
import { metricsVerb } from './graph/metrics.ts';
import { analysisVerbs } from './analysis/index.ts';
import { sessionVerbs } from './session/index.ts';
import { trailVerbs } from './trails/index.ts';
import { trailResource } from './trails/trail-resource.ts';
import { recordWrittenFilesAsSeen } from './session/written-files.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateService } from '../state/api.ts';

export default definePlugin({
  name: 'core',
  version: '0.1.0',
  description: "m1nd's core verbs over the code graph.",
  requires: ['graph', 'state'],
  apply(ctx) {
    const own = [ingestVerb, persistVerb, viewVerb, batchViewVerb, globVerb, searchVerb, seekVerb, metricsVerb];
    for (const verb of [...own, ...analysisVerbs, ...sessionVerbs, ...trailVerbs]) ctx.registerVerb(verb);
    ctx.registerResource(trailResource(() => ctx.service<StateService>('state')));
    recordWrittenFilesAsSeen(ctx.hooks, ctx.settings.workspaceRoot);
    ctx.hooks.doctrine.tap('core', (sections, info) => {
      // Name only verbs this tier shows; anything else is reachable by name, which help explains.
      const say = (verb: string) => (info.advertised.has(verb) ? verb : `${verb} (not listed here; callable, see help)`);
      return [
        ...sections,
        `Start with ${say('ingest')} ({"agent_id":…,"path":"<workspace>"}) when health shows an empty graph; then ${say('seek')} (by purpose) or ${say('search')} (by text) to find code, and ${say('view')} to read it with line numbers. The graph re-ingests edited files before each query.`,
      ];
    });
    ctx.hooks.workflows.tap('core', (list) => [
      ...list,
      {
        name: 'find and read',
        when: 'find: locate the code for a task',
        steps: [
          { verb: 'ingest', why: 'once per workspace (later calls are incremental)' },
          { verb: 'seek', why: 'rank symbols and files by purpose' },
          { verb: 'search', why: 'exact text or regex with context' },
          { verb: 'view', why: 'read the lines, numbered' },
        ],
      },
    ]);
  },
});
