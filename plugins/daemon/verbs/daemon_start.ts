/** daemon_start: start (or re-target) the persisted monitoring daemon over folders of the workspace. */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import type { DaemonRuntime } from '../runtime.ts';

export function daemonStartVerb(rt: DaemonRuntime) {
  return defineVerb({
    name: 'daemon_start',
    description: 'Start the persisted background monitor: watched files re-ingested when they change; deletions, moves, broken doc links and stale claims raised as alerts. Resumes after a restart.',
    input: Type.Object({
      agent_id: AgentId,
      watch_paths: Type.Array(Type.String({ minLength: 1, description: 'Workspace folder or file' }), { maxItems: 32, default: [], description: 'Folders to watch ([]: the whole workspace)' }),
      poll_interval_ms: Type.Integer({ minimum: 50, maximum: 600_000, default: 500, description: 'Quiet time after file events before a background cycle' }),
    }),
    output: Type.Object({ active: Type.Boolean(), watching: Type.Boolean(), watch_paths: Type.Array(Type.String()), poll_interval_ms: Type.Number(), started_by: Type.Union([Type.String(), Type.Null()]), next: Type.String() }),
    tiers: ['full'],
    // It persists (state, manifest, acknowledgements): the read-only gate refuses it before any side effect.
    effect: 'write',
    next: 'daemon_status',
    handler: async (args, call) => {
      const paths = rt.daemon.resolveWatchPaths(args.watch_paths);
      const state = await rt.daemon.start(call.agentId, paths, args.poll_interval_ms);
      return {
        ...rt.daemon.summary(state),
        next: 'daemon_tick runs a cycle now; alerts_list shows what it raised',
      };
    },
  });
}
