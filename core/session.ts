/**
 * Shared session memory of one host: which agents called, what each proved ready for writing,
 * and a per-agent state bag plugins use. One SessionStore serves every MCP connection, so agents
 * on different transports see the same memory. It survives hot reloads (passed to each generation).
 */
import path from 'node:path';

export interface AgentRecord {
  agentId: string;
  firstSeen: number;
  lastSeen: number;
  queryCount: number;
  /** Calls per verb, for coverage and reports. */
  verbs: Map<string, number>;
}

export interface ProofMark {
  provedAt: number;
  /** Verb (and detail) that proved the target ready. */
  evidence: string;
}

/** The agent id used when a call carries none. */
export const UNKNOWN_AGENT = 'unknown';

export class SessionStore {
  readonly startedAt = Date.now();
  private readonly agents = new Map<string, AgentRecord>();
  private readonly proofs = new Map<string, Map<string, ProofMark>>();
  private readonly bags = new Map<string, Map<string, unknown>>();

  constructor(private readonly workspaceRoot: string) {}

  /** Records a call by an agent (first/last seen, count, verb usage). */
  track(agentId: string, verb: string): AgentRecord {
    const now = Date.now();
    let rec = this.agents.get(agentId);
    if (!rec) {
      rec = { agentId, firstSeen: now, lastSeen: now, queryCount: 0, verbs: new Map() };
      this.agents.set(agentId, rec);
    }
    rec.lastSeen = now;
    rec.queryCount += 1;
    rec.verbs.set(verb, (rec.verbs.get(verb) ?? 0) + 1);
    return rec;
  }

  /** Every agent seen so far. */
  listAgents(): AgentRecord[] {
    return [...this.agents.values()];
  }

  /** The agent's record, if it has called anything. */
  agent(agentId: string): AgentRecord | undefined {
    return this.agents.get(agentId);
  }

  /** A target path as the gate compares it: workspace-relative, forward slashes; null if outside. */
  normalizeTarget(target: string): string | null {
    if (typeof target !== 'string' || target.trim() === '') return null;
    const abs = path.resolve(this.workspaceRoot, target);
    const rel = path.relative(this.workspaceRoot, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/') || '.';
  }

  /** Marks targets proven ready for writing by this agent; returns the normalized ones. */
  markProven(agentId: string, targets: string[], evidence: string): string[] {
    let marks = this.proofs.get(agentId);
    if (!marks) this.proofs.set(agentId, (marks = new Map()));
    const done: string[] = [];
    for (const t of targets) {
      const key = this.normalizeTarget(t);
      if (key === null) continue;
      marks.set(key, { provedAt: Date.now(), evidence });
      done.push(key);
    }
    return done;
  }

  /** Drops an agent's proof of a target (after the write consumed it, or on a change). */
  clearProven(agentId: string, target: string): void {
    const key = this.normalizeTarget(target);
    if (key !== null) this.proofs.get(agentId)?.delete(key);
  }

  /** Whether this agent proved this target ready; an unnormalizable target is never proven. */
  isProven(agentId: string, target: string): boolean {
    const key = this.normalizeTarget(target);
    return key !== null && (this.proofs.get(agentId)?.has(key) ?? false);
  }

  /** A per-agent value owned by a plugin, created on first use. */
  state<T>(agentId: string, key: string, init: () => T): T {
    let bag = this.bags.get(agentId);
    if (!bag) this.bags.set(agentId, (bag = new Map()));
    if (!bag.has(key)) bag.set(key, init());
    return bag.get(key) as T;
  }
}
