/**
 * Missions: a bounded piece of work with a mode, a budget (calls, tokens, minutes), a risk level,
 * an event log classed by evidence, and claims checked against that log. Stored in the workspace
 * store (namespace `memory.missions`), so a new server resumes a mission where the last one left it.
 */
import { randomBytes } from 'node:crypto';
import { countValueTokens, ErrorCodes, M1ndError, StringEnum, Type } from '../../../core/index.ts';
import type { StateStore } from '../../state/api.ts';

export const MISSIONS_NAMESPACE = 'memory.missions';
export const MODES = ['bug_hunt', 'review', 'refactor', 'docs_drift', 'architecture', 'release'] as const;
export type Mode = (typeof MODES)[number];
export const RISKS = ['low', 'medium', 'high'] as const;
export type Risk = (typeof RISKS)[number];
const MAX_EVENTS = 500;

export interface Budget {
  calls: number;
  tokens: number;
  minutes: number;
}

export const BUDGET_PRESETS: Record<'short' | 'normal' | 'deep', Budget> = {
  short: { calls: 12, tokens: 20_000, minutes: 20 },
  normal: { calls: 30, tokens: 60_000, minutes: 60 },
  deep: { calls: 80, tokens: 150_000, minutes: 180 },
};

/** The `budget` parameter: a preset name or explicit limits. */
export const BudgetParam = Type.Union([
  StringEnum(['short', 'normal', 'deep'] as const),
  Type.Object({ calls: Type.Optional(Type.Integer({ minimum: 1 })), tokens: Type.Optional(Type.Integer({ minimum: 100 })), minutes: Type.Optional(Type.Number({ minimum: 1 })) }),
]);

/** One observed action. */
export interface MissionEvent {
  seq: number;
  at: number;
  action: string;
  /** direct: a file read, a test run, command output; graph_only: what the graph said. */
  evidence_class: 'direct' | 'graph_only';
  /** Workspace paths (and node ids) the action was about. */
  refs: string[];
  outcome?: string;
  confidence?: number;
  cmd?: string;
  exit_status?: number;
}

/** A claim checked against the event log. */
export interface MissionClaim {
  text: string;
  status: 'verified' | 'unverified';
  direct_refs: string[];
  graph_refs: string[];
  unobserved_refs: string[];
  /** Refs only direct events whose command failed (a non-zero exit, tests aside) cite. */
  failed_refs?: string[];
  /** Refs naming no file, directory or symbol of the workspace: nothing can have observed them. */
  missing_refs?: string[];
  confidence?: number;
  at: number;
}

export interface Mission {
  id: string;
  agent_id: string;
  /** Agents that may act on it (the owner and hand-off recipients). */
  agents: string[];
  repo: string;
  task: string;
  mode: Mode;
  risk: Risk;
  budget: Budget;
  used: { calls: number; tokens: number };
  started_at: number;
  parent_mission_id?: string;
  events: MissionEvent[];
  claims: MissionClaim[];
  status: 'open' | 'closed';
  closed_at?: number;
  handoffs: { to: string | null; at: number; summary?: string }[];
}

/** What is left of a mission's budget, as every mission answer reports it. */
export function budgetReport(m: Mission) {
  const minutes = Math.round(((Date.now() - m.started_at) / 60_000) * 10) / 10;
  return {
    calls: { used: m.used.calls, limit: m.budget.calls, left: Math.max(0, m.budget.calls - m.used.calls) },
    tokens: { used: m.used.tokens, limit: m.budget.tokens, left: Math.max(0, m.budget.tokens - m.used.tokens) },
    minutes: { used: minutes, limit: m.budget.minutes, left: Math.max(0, Math.round((m.budget.minutes - minutes) * 10) / 10) },
    exhausted: exhausted(m),
  };
}

/** The budget dimension that ran out, or null. */
export function exhausted(m: Mission): 'calls' | 'tokens' | 'minutes' | null {
  if (m.used.calls >= m.budget.calls) return 'calls';
  if (m.used.tokens >= m.budget.tokens) return 'tokens';
  if (Date.now() - m.started_at >= m.budget.minutes * 60_000) return 'minutes';
  return null;
}

/** Every mission of the workspace. */
export class MissionBook {
  // Versions of the missions loaded through this book: save compares-and-swaps against them.
  private readonly versions = new Map<string, number>();

  constructor(private readonly store: StateStore) {}

  newId(): string {
    return `m_${randomBytes(5).toString('hex')}`;
  }

  /** A mission the agent may act on; STATE_NOT_FOUND / STATE_NOT_OWNER otherwise. */
  async load(agentId: string, id: string, opts: { open?: boolean } = {}): Promise<Mission> {
    const row = await this.store.get<Mission>(MISSIONS_NAMESPACE, id);
    if (row) this.versions.set(id, row.version);
    const m = row?.value;
    if (!m) throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no mission "${id}" on this workspace`, { hint: 'start one with mission_start' });
    if (!m.agents.includes(agentId)) {
      throw new M1ndError(ErrorCodes.STATE_NOT_OWNER, `mission "${id}" belongs to ${m.agents.join(', ')}`, { hint: `ask "${m.agent_id}" for a mission_handoff naming you as recipient_agent_id` });
    }
    if (opts.open && m.status === 'closed') {
      throw new M1ndError(ErrorCodes.MISSION_CLOSED, `mission "${id}" is closed`, { hint: 'start a new mission (parent_mission_id links them)' });
    }
    return m;
  }

  /** Counts one call (and the tokens of its answer) against the budget; refuses when it is spent. */
  charge(m: Mission, enforce: boolean): void {
    const out = exhausted(m);
    if (enforce && out) {
      throw new M1ndError(ErrorCodes.MISSION_BUDGET, `mission "${m.id}" has spent its ${out} budget`, {
        hint: `wrap up: mission_handoff or mission_close({"mission_id":"${m.id}"})`,
        data: { budget: budgetReport(m) },
      });
    }
    m.used.calls += 1;
  }

  /** Adds an answer's tokens to the budget use, then stores the mission. */
  async save(m: Mission, answer?: unknown): Promise<void> {
    if (answer !== undefined) m.used.tokens += countValueTokens(answer);
    if (m.events.length > MAX_EVENTS) m.events = m.events.slice(-MAX_EVENTS);
    // A new mission only if its id is free; a loaded one only if nobody saved it since (two agents of a handed-off mission).
    const row = await this.store.put(MISSIONS_NAMESPACE, m.id, m, { ifVersion: this.versions.get(m.id) ?? null });
    if (!row) {
      throw new M1ndError(ErrorCodes.STATE_CONFLICT, `mission "${m.id}" was updated by another call meanwhile; this update was not written`, {
        hint: 'repeat the call: it reads the mission again',
        data: { mission_id: m.id },
      });
    }
    this.versions.set(m.id, row.version);
  }
}
