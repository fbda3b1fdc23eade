/**
 * A successful write is a read of what was written: after a write verb with a proof resolver (the
 * paths it writes) succeeds, its agent has seen those files as they now are (the symbol lines it saw
 * there before are dropped), so its own `am_i_stale` does not report its own edit (other agents'
 * still do). Any plugin's write verb is covered.
 */
import type { HostHooks, ProofTargets } from '../../../core/index.ts';
import { recordVisit, visitsOf } from './visits.ts';

/** Taps afterCall: records the written paths of successful write calls as seen by their agent. */
export function recordWrittenFilesAsSeen(hooks: HostHooks, root: string): void {
  hooks.afterCall.tap('core:written-files-seen', (call, outcome) => {
    if (outcome.kind !== 'ok' || (call.effect !== 'write' && call.effect !== 'destructive') || !call.verb.proof) return;
    const record = (t: ProofTargets) => {
      if (!t.targets || t.targets.length === 0) return;
      recordVisit(call.ctx, root, { files: t.targets });
      // The lines it saw of their symbols are superseded by what it wrote: no longer "moved" for it.
      const written = new Set(t.targets);
      const nodes = visitsOf(call.ctx.session, call.ctx.agentId).nodes;
      for (const [id, n] of nodes) if (written.has(n.path)) nodes.delete(id);
    };
    try {
      const targets = call.verb.proof(call.args as never, call.ctx);
      if (targets instanceof Promise) void targets.then(record, () => undefined);
      else record(targets);
    } catch {
      // A resolver that cannot name its targets now names nothing to record.
    }
  });
}
