/** The delegation registry: packets delegate handed out (namespace `memory.delegations`) and the outcomes ledger debrief appends (`memory.outcomes`). */
import type { GraphService } from '../graph/api.ts';
import { ErrorCodes, M1ndError } from '../../core/index.ts';

export const DELEGATIONS_NAMESPACE = 'memory.delegations';
export const OUTCOMES_NAMESPACE = 'memory.outcomes';

/** What debrief needs of a packet. */
export interface DelegationRecord {
  delegation_id: string;
  agent_id: string;
  task: string;
  editable: string[];
  anchors: string[];
  claim_ids: string[];
  tests: string[];
  created_at: number;
}

/** A delegation the caller handed out; STATE_NOT_FOUND otherwise. */
export function loadDelegation(graph: GraphService, agentId: string, id: string): DelegationRecord {
  const d = graph.engine.memory.get<DelegationRecord>(DELEGATIONS_NAMESPACE, id)?.value;
  if (!d) throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no delegation "${id}" on this workspace`, { hint: 'delegation ids come from delegate (a read-only server records none)' });
  if (d.agent_id !== agentId) throw new M1ndError(ErrorCodes.STATE_NOT_OWNER, `delegation "${id}" was made by "${d.agent_id}"`, { hint: 'the delegating agent debriefs its sub-agent' });
  return d;
}

/** True when `path` is one of `editable` or under one of them (directories). */
export function inScope(editable: readonly string[], path: string): boolean {
  return editable.some((e) => path === e || path.startsWith(e.endsWith('/') ? e : `${e}/`));
}
