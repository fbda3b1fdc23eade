/**
 * Per-agent call statistics for the dashboard, fed by an `afterCall` tap: calls per verb, latency
 * p50/p99 over a bounded window, tokens returned, refusals, errors, the last calls, recent errors
 * and the MCP connections seen. Everything is bounded (agents, verbs per agent, samples, last calls),
 * so a long-running server's memory stays flat. Recording is O(1); percentiles are computed on read.
 * Tokens are the result's BPE count: taken from result shaping when it counted them, otherwise
 * counted later off the call path (HTTP calls only, where a dashboard can look), never characters/4.
 */
import { countTokens, countTokensAsync, tokenizerLoaded } from '../../core/index.ts';

/** Bounds of the statistics (a server with more agents or verbs keeps the most recent). */
export const STATS_LIMITS = Object.freeze({
  agents: 200,
  verbsPerAgent: 150,
  /** Latency samples kept per agent, and per agent and verb. */
  agentSamples: 512,
  verbSamples: 128,
  lastCalls: 20,
  recentErrors: 50,
  connections: 500,
  /** Results waiting for their tokens to be counted; older ones are left uncounted. */
  pendingCounts: 64,
});

export type Outcome = 'ok' | 'refused' | 'error';

/** One finished call as the tap reports it. */
export interface CallRecord {
  agentId: string;
  verb: string;
  ms: number;
  outcome: Outcome;
  /** Tokens of the result when result shaping counted them. */
  tokens?: number;
  /** The result text as sent, to count later when `tokens` is absent and `countLater` is set. */
  text?: string;
  countLater: boolean;
  connectionId?: string;
  error?: { code: string; message: string };
}

/** A fixed-size ring of numbers (latency samples). */
class Samples {
  private readonly values: Float64Array;
  private next = 0;
  private size = 0;
  constructor(capacity: number) {
    this.values = new Float64Array(capacity);
  }
  add(v: number): void {
    this.values[this.next] = v;
    this.next = (this.next + 1) % this.values.length;
    if (this.size < this.values.length) this.size++;
  }
  /** p50 and p99 of the samples kept (nearest rank), rounded to 0.01 ms; null when empty. */
  percentiles(): { p50: number | null; p99: number | null } {
    if (this.size === 0) return { p50: null, p99: null };
    const sorted = Array.from(this.values.subarray(0, this.size)).sort((a, b) => a - b);
    const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
    return { p50: round(rank(0.5)), p99: round(rank(0.99)) };
  }
}

interface VerbStat {
  calls: number;
  tokens: number;
  samples: Samples;
}

/** One of an agent's last calls (tokens filled in once counted; null when never counted); `at` in epoch ms. */
export interface LastCall {
  at: number;
  verb: string;
  ms: number;
  outcome: Outcome;
  tokens: number | null;
}

interface AgentStat {
  agentId: string;
  calls: number;
  refusals: number;
  errors: number;
  tokens: number;
  samples: Samples;
  byVerb: Map<string, VerbStat>;
  last: LastCall[];
  lastAt: number;
}

interface Connection {
  id: string;
  agentId: string;
  firstAt: number;
  lastAt: number;
  calls: number;
}

interface PendingCount {
  text: string;
  agent: AgentStat;
  verb: VerbStat;
  last: LastCall;
}

/** The statistics of one server (shared by every generation's tap through the plugin's closure). */
export class CallStats {
  private readonly agents = new Map<string, AgentStat>();
  private readonly connections = new Map<string, Connection>();
  private readonly errors: { at: string; agent: string; verb: string; code: string; message: string }[] = [];
  private readonly pending: PendingCount[] = [];
  private counting = false;
  readonly startedAt = Date.now();

  record(c: CallRecord): { last: LastCall } {
    const now = Date.now();
    const agent = this.agentFor(c.agentId, now);
    agent.calls++;
    agent.lastAt = now;
    if (c.outcome === 'refused') agent.refusals++;
    if (c.outcome === 'error') agent.errors++;
    agent.samples.add(c.ms);
    let verb = agent.byVerb.get(c.verb);
    if (!verb) {
      if (agent.byVerb.size >= STATS_LIMITS.verbsPerAgent) agent.byVerb.delete(leastCalled(agent.byVerb));
      agent.byVerb.set(c.verb, (verb = { calls: 0, tokens: 0, samples: new Samples(STATS_LIMITS.verbSamples) }));
    }
    verb.calls++;
    verb.samples.add(c.ms);
    const last: LastCall = { at: now, verb: c.verb, ms: round(c.ms), outcome: c.outcome, tokens: null };
    agent.last.push(last);
    if (agent.last.length > STATS_LIMITS.lastCalls) agent.last.shift();
    if (c.tokens !== undefined) addTokens(agent, verb, last, c.tokens);
    else if (c.countLater && c.text !== undefined) this.countLater({ text: c.text, agent, verb, last });
    if (c.error) {
      this.errors.push({ at: new Date(now).toISOString(), agent: c.agentId, verb: c.verb, code: c.error.code, message: c.error.message.slice(0, 300) });
      if (this.errors.length > STATS_LIMITS.recentErrors) this.errors.shift();
    }
    if (c.connectionId !== undefined) this.seeConnection(c.connectionId, c.agentId, now);
    return { last };
  }

  /** Every agent's statistics, most recently active first. */
  agentsView() {
    return [...this.agents.values()]
      .sort((a, b) => b.lastAt - a.lastAt)
      .map((a) => {
        const { p50, p99 } = a.samples.percentiles();
        return {
          agent_id: a.agentId,
          calls: a.calls,
          refusals: a.refusals,
          errors: a.errors,
          tokens_returned: a.tokens,
          p50_ms: p50,
          p99_ms: p99,
          by_verb: [...a.byVerb.entries()]
            .sort((x, y) => y[1].calls - x[1].calls || x[0].localeCompare(y[0]))
            .map(([verb, v]) => {
              const q = v.samples.percentiles();
              return { verb, calls: v.calls, p50_ms: q.p50, p99_ms: q.p99, tokens: v.tokens };
            }),
          last_calls: [...a.last].reverse().map((l) => ({ ...l, at: new Date(l.at).toISOString() })),
        };
      });
  }

  /** The MCP connections seen making calls, most recent first. */
  connectionsView(): Connection[] {
    return [...this.connections.values()].sort((a, b) => b.lastAt - a.lastAt);
  }

  /** The latest failed or refused calls, newest first. */
  recentErrors(limit = 20) {
    return this.errors.slice(-limit).reverse();
  }

  private agentFor(agentId: string, now: number): AgentStat {
    let agent = this.agents.get(agentId);
    if (agent) return agent;
    if (this.agents.size >= STATS_LIMITS.agents) {
      let oldest: AgentStat | undefined;
      for (const a of this.agents.values()) if (!oldest || a.lastAt < oldest.lastAt) oldest = a;
      if (oldest) this.agents.delete(oldest.agentId);
    }
    agent = { agentId, calls: 0, refusals: 0, errors: 0, tokens: 0, samples: new Samples(STATS_LIMITS.agentSamples), byVerb: new Map(), last: [], lastAt: now };
    this.agents.set(agentId, agent);
    return agent;
  }

  private seeConnection(id: string, agentId: string, now: number): void {
    let conn = this.connections.get(id);
    if (!conn) {
      if (this.connections.size >= STATS_LIMITS.connections) {
        let oldest: Connection | undefined;
        for (const c of this.connections.values()) if (!oldest || c.lastAt < oldest.lastAt) oldest = c;
        if (oldest) this.connections.delete(oldest.id);
      }
      this.connections.set(id, (conn = { id, agentId, firstAt: now, lastAt: now, calls: 0 }));
    }
    conn.agentId = agentId;
    conn.lastAt = now;
    conn.calls++;
  }

  /** Queues a result to count; counting runs in slices of at most ~8 ms between other work. */
  private countLater(p: PendingCount): void {
    this.pending.push(p);
    if (this.pending.length > STATS_LIMITS.pendingCounts) this.pending.shift();
    if (this.counting) return;
    this.counting = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    // Until this thread has the tokenizer's tables (a verb's own count loads them), results are
    // counted one at a time in the counting worker: loading them here would hold the loop ~0.3–0.5 s.
    if (!tokenizerLoaded()) {
      const p = this.pending.shift()!;
      void countTokensAsync(p.text)
        .then((tokens) => addTokens(p.agent, p.verb, p.last, tokens))
        .finally(() => {
          if (this.pending.length > 0) setImmediate(() => this.drain());
          else this.counting = false;
        });
      return;
    }
    const until = performance.now() + 8;
    while (this.pending.length > 0 && performance.now() < until) {
      const p = this.pending.shift()!;
      addTokens(p.agent, p.verb, p.last, countTokens(p.text));
    }
    if (this.pending.length > 0) setImmediate(() => this.drain());
    else this.counting = false;
  }

  /** Resolves once every queued result is counted (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.counting) await new Promise((r) => setImmediate(r));
  }
}

function addTokens(agent: AgentStat, verb: VerbStat, last: LastCall, tokens: number): void {
  agent.tokens += tokens;
  verb.tokens += tokens;
  last.tokens = tokens;
}

function leastCalled(map: Map<string, VerbStat>): string {
  let name = '';
  let min = Infinity;
  for (const [k, v] of map) if (v.calls < min) [name, min] = [k, v.calls];
  return name;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
