/**
 * Proofs the edit family gives and checks. `surgical_context_v2` marks a file proven for the calling
 * agent (the host's proof gate reads that mark) and records here the content hash it proved; a
 * write's proof resolver drops a proof whose file no longer has that hash, so the gate refuses a
 * write over a file that changed since the agent read it (another agent's or a person's edit).
 */
import type { CallContext, SessionStore } from '../../core/index.ts';
import { slicePace, type GraphService } from '../graph/api.ts';

const BAG = 'edit:proven-hashes';
/** Budget of one turn of a proof resolver before other calls get the loop. */
const PROOF_SLICE_MS = 8;

/** The verb whose call proves a file (named in refusals). */
export const PROVER = 'surgical_context_v2';

function hashes(session: SessionStore, agentId: string): Map<string, string> {
  return session.state(agentId, BAG, () => new Map<string, string>());
}

/** Marks `path` proven for the agent at content `hash`. */
export function recordProof(call: CallContext, path: string, hash: string): void {
  call.session.markProven(call.agentId, [path], `${PROVER} sha1:${hash.slice(0, 12)}`);
  hashes(call.session, call.agentId).set(path, hash);
}

/** After the agent's own write: its proof follows the content it wrote (it knows that content). */
export function advanceProof(call: CallContext, path: string, hash: string): void {
  const mine = hashes(call.session, call.agentId);
  if (mine.has(path) && call.session.isProven(call.agentId, path)) mine.set(path, hash);
}

/**
 * The proof resolver of a write verb: resolves `paths` to workspace paths and, for each, drops the
 * agent's proof when the file's current hash is not the proven one (stale). Returns the targets for
 * the gate; null when a path cannot be resolved (the gate then refuses). Each file is read and
 * hashed, in slices of PROOF_SLICE_MS (the gate and the written-files tap resolve a 200-file batch's
 * targets: 30–60 ms in one piece).
 */
export async function proofTargets(graph: GraphService, ctx: CallContext, paths: readonly string[]): Promise<{ targets: string[] | null }> {
  const mine = hashes(ctx.session, ctx.agentId);
  const targets: string[] = [];
  const pace = slicePace(PROOF_SLICE_MS);
  for (const userPath of paths) {
    await pace();
    let rel: string;
    try {
      rel = graph.engine.resolvePath(userPath).relative;
    } catch {
      return { targets: null };
    }
    if (!rel) return { targets: null };
    const current = graph.contentHash(rel) ?? 'absent';
    if (mine.get(rel) !== current) {
      ctx.session.clearProven(ctx.agentId, rel);
      mine.delete(rel);
    }
    targets.push(rel);
  }
  return { targets };
}
