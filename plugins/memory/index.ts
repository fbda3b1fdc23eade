/**
 * The memory family: claims agents leave each other, anchored to code with computed freshness;
 * boot memory; orientation packets; missions; hand-offs; the repository's doctrine document.
 * Provides the `memory` service; state lives in the workspace store (shared by every agent and
 * server process) and shared claims are mirrored as Markdown for review.
 */
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import type { StateService } from '../state/api.ts';
import { existsSync } from 'node:fs';
import { createMemoryService } from './service.ts';
import { MirrorEditWatcher } from './mirror-edits.ts';
import { memorizeVerb } from './verbs/memorize.ts';
import { orientVerb } from './verbs/orient.ts';
import { bootMemoryVerb } from './verbs/boot_memory.ts';
import { promoteVerb } from './verbs/promote.ts';
import { missionStartVerb } from './verbs/mission_start.ts';
import { missionEventVerb } from './verbs/mission_event.ts';
import { missionNextVerb } from './verbs/mission_next.ts';
import { missionVerifyVerb } from './verbs/mission_verify.ts';
import { missionHandoffVerb } from './verbs/mission_handoff.ts';
import { missionCloseVerb } from './verbs/mission_close.ts';
import { soulCheckVerb } from './verbs/soul_check.ts';
import { soulReadVerb } from './verbs/soul_read.ts';
import { northVerb } from './verbs/north.ts';
import { delegateVerb } from './verbs/delegate.ts';
import { debriefVerb } from './verbs/debrief.ts';

const Options = Type.Object({
  folder: Type.String({ default: '.m1nd/memory', description: 'Workspace folder of the Markdown mirror (e.g. docs/memory to commit it)' }),
  mirror: Type.Boolean({ default: true, description: 'Write shared claims as Markdown into the folder' }),
  soulPath: Type.Optional(Type.String({ description: 'The doctrine document (default: AGENTS.md, then CLAUDE.md, then .cursorrules)' })),
  maxClaimChars: Type.Integer({ minimum: 100, default: 2000 }),
  maxEvidence: Type.Integer({ minimum: 1, default: 20 }),
  maxClaimsPerAgent: Type.Integer({ minimum: 1, default: 2000 }),
});

export interface MemoryOptions {
  folder: string;
  mirror: boolean;
  soulPath?: string;
  maxClaimChars: number;
  maxEvidence: number;
  maxClaimsPerAgent: number;
}

export default definePlugin<MemoryOptions>({
  name: 'memory',
  version: '0.1.0',
  description: 'Shared memory: claims anchored to code, boot memory, orientation, missions, hand-offs, doctrine.',
  requires: ['graph', 'state'],
  provides: ['memory'],
  options: Options,
  apply(ctx) {
    const graph = ctx.service<GraphService>('graph');
    const { folder, maxClaimChars, maxEvidence, maxClaimsPerAgent } = ctx.options;
    // Hand edits of the Markdown mirror flow back into the store (not on a read-only server, which never writes it).
    const edits = new MirrorEditWatcher(() => service.claims, maxClaimChars, ctx.log);
    const watchMirror = () => {
      if (!ctx.options.mirror || !graph.writable) return;
      try {
        const dir = graph.run(() => graph.engine.resolvePath(folder)).absolute;
        if (existsSync(dir)) edits.start(dir);
      } catch (error) {
        ctx.log.warn(`memory mirror folder ${folder} is not watched: ${(error as Error).message}`);
      }
    };
    const service = createMemoryService(graph, ctx.service<StateService>('state'), { folder, mirror: ctx.options.mirror, limits: { maxClaimChars, maxEvidence, maxClaimsPerAgent }, onMirrored: watchMirror });
    ctx.provide('memory', service);
    ctx.hooks.ready.tap('memory', watchMirror);
    ctx.hooks.shutdown.tapPromise('memory', () => edits.stop());
    ctx.registerVerb(memorizeVerb);
    ctx.registerVerb(orientVerb);
    ctx.registerVerb(bootMemoryVerb);
    ctx.registerVerb(promoteVerb);
    ctx.registerVerb(missionStartVerb);
    ctx.registerVerb(missionEventVerb);
    ctx.registerVerb(missionNextVerb);
    ctx.registerVerb(missionVerifyVerb);
    ctx.registerVerb(missionHandoffVerb);
    ctx.registerVerb(missionCloseVerb);
    ctx.registerVerb(soulReadVerb(ctx.options.soulPath));
    ctx.registerVerb(soulCheckVerb(ctx.options.soulPath));
    ctx.registerVerb(northVerb);
    ctx.registerVerb(delegateVerb);
    ctx.registerVerb(debriefVerb);

    ctx.hooks.workflows.tap('memory', (list) => [
      ...list,
      {
        name: 'share what you learned',
        when: 'orient on a task with what other agents found, leave what you found for the next one',
        steps: [
          { verb: 'north', why: 'trust, focus and dated memory for the task' },
          { verb: 'orient', why: 'claims on the nodes you will touch; stale ones say what changed' },
          { verb: 'memorize', why: 'each durable finding with evidence (file, lines or node)' },
          { verb: 'promote', why: 'optional: a fresh project claim the whole team should know' },
        ],
      },
      {
        name: 'run a bounded mission',
        when: 'a bug hunt, review or refactor with a budget and findings backed by direct evidence',
        steps: [
          { verb: 'mission_start', why: 'mode, budget, risk; starter moves' },
          { verb: 'mission_event', why: 'log each read, test run or graph answer' },
          { verb: 'mission_verify', why: 'a finding counts only when a direct event backs it' },
          { verb: 'mission_close', why: 'proof packet; write_light_memory memorizes the verified claims' },
        ],
      },
    ]);
  },
});

export type { MemoryService } from './service.ts';
