/**
 * What each agent has already been shown by the memory verbs this session (nodes and claims), so
 * orient can say what is new to it. Session memory only, per agent.
 */
import type { SessionStore } from '../../core/index.ts';

export interface MemoryCoverage {
  nodes: Set<string>;
  claims: Set<string>;
}

/** The agent's record (created empty on first use). */
export function coverageOf(session: SessionStore, agentId: string): MemoryCoverage {
  return session.state<MemoryCoverage>(agentId, 'memory:coverage', () => ({ nodes: new Set(), claims: new Set() }));
}
