/**
 * Per-agent call statistics for the dashboard, fed by an `afterCall` tap: calls per verb, latency
 * p50/p99 over a bounded window, tokens returned, refusals, errors, the last calls, recent errors
 * and the MCP connections seen. Everything is bounded (agents, verbs per agent, samples, last calls),
 * so a long-running server's memory stays flat. Recording a call writes a few slots of a fixed ring
 * (no allocation, no clock read: every call pays it); the ring is folded into the per-agent
 * statistics when it fills and before any read. Percentiles are computed on read.
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
  /** When it ended, epoch ms (default: now). */
  at?: number;
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

/** Calls recorded before a fold (the ring's size). */
const RING = 256;
const OUTCOMES: readonly Outcome[] = ['ok', 'refused', 'error'];
const OUTCOME_CODE: Readonly<Record<Outcome, number>> = { ok: 0, refused: 1, error: 2 };

/** The statistics of one server (shared by every generation's tap through the plugin's closure). */
export class CallStats {
  private readonly agents = new Map<string, AgentStat>();
  private readonly connections = new Map<string, Connection>();
  private readonly errors: { at: string; agent: string; verb: string; code: string; message: string }[] = [];
  private readonly pending: PendingCount[] = [];
  private counting = false;
  readonly startedAt = Date.now();
  // The ring of calls not folded yet, one array per field (strings are held by reference).
  private readonly ringAgent: string[] = new Array<string>(RING).fill('');
  private readonly ringVerb: string[] = new Array<string>(RING).fill('');
  private readonly ringMs = new Float64Array(RING);
  private readonly ringAt = new Float64Array(RING);
  /** -1: not counted by result shaping. */
  private readonly ringTokens = new Float64Array(RING);
  private readonly ringOutcome = new Uint8Array(RING);
  private readonly ringText: (string | undefined)[] = new Array<string | undefined>(RING).fill(undefined);
  private readonly ringConnection: (string | undefined)[] = new Array<string | undefined>(RING).fill(undefined);
  private readonly ringError: ({ code: string; message: string } | undefined)[] = new Array<{ code: string; message: string } | undefined>(RING).fill(undefined);
  /** Calls in the ring, and how many of them hold a result text to count later. */
  private ringSize = 0;
  private ringTexts = 0;

  /** Records one finished call (the object form of `add`). */
  record(c: CallRecord): void {
    this.add(c.agentId, c.verb, c.ms, OUTCOME_CODE[c.outcome], c.at ?? Date.now(), c.tokens, c.countLater ? c.text : undefined, c.connectionId, c.error);
  }

  /**
   * Records one finished call: O(1), allocation-free (the tap calls it on every call). `outcome` is 0
   * ok, 1 refused, 2 error; `at` epoch ms; `text` the result as sent, counted later (off the call path)
   * when result shaping did not count its tokens (pass it only where a dashboard can be looking).
   */
  add(agentId: string, verb: string, ms: number, outcome: number, at: number, tokens: number | undefined, text: string | undefined, connectionId: string | undefined, error: { code: string; message: string } | undefined): void {
    const i = this.ringSize;
    this.ringAgent[i] = agentId;
    this.ringVerb[i] = verb;
    this.ringMs[i] = ms;
    this.ringAt[i] = at;
    this.ringOutcome[i] = outcome;
    this.ringTokens[i] = tokens ?? -1;
    this.ringConnection[i] = connectionId;
    this.ringError[i] = error;
    if (tokens === undefined && text !== undefined) {
      this.ringText[i] = text;
      this.ringTexts++;
    }
    this.ringSize = i + 1;
    // Full, or holding as many texts as may wait for a count: fold (amortised O(1) per call).
    if (this.ringSize === RING || this.ringTexts >= STATS_LIMITS.pendingCounts) this.fold();
  }

  /** Folds the calls recorded since the last fold into the statistics (before every read). */
  fold(): void {
    const n = this.ringSize;
    this.ringSize = 0;
    this.ringTexts = 0;
    for (let i = 0; i < n; i++) {
      const text = this.ringText[i];
      const tokens = this.ringTokens[i];
      this.fold1(this.ringAgent[i], this.ringVerb[i], this.ringMs[i], this.ringAt[i], OUTCOMES[this.ringOutcome[i]], tokens < 0 ? undefined : tokens, text, this.ringConnection[i], this.ringError[i]);
      // Drop the references: the ring must not keep results or names alive.
      this.ringText[i] = undefined;
      this.ringError[i] = undefined;
      this.ringConnection[i] = undefined;
      this.ringAgent[i] = '';
      this.ringVerb[i] = '';
    }
  }

  private fold1(agentId: string, verbName: string, ms: number, now: number, outcome: Outcome, tokens: number | undefined, text: string | undefined, connectionId: string | undefined, error: { code: string; message: string } | undefined): void {
    const agent = this.agentFor(agentId, now);
    agent.calls++;
    agent.lastAt = now;
    if (outcome === 'refused') agent.refusals++;
    if (outcome === 'error') agent.errors++;
    agent.samples.add(ms);
    let verb = agent.byVerb.get(verbName);
    if (!verb) {
      if (agent.byVerb.size >= STATS_LIMITS.verbsPerAgent) agent.byVerb.delete(leastCalled(agent.byVerb));
      agent.byVerb.set(verbName, (verb = { calls: 0, tokens: 0, samples: new Samples(STATS_LIMITS.verbSamples) }));
    }
    verb.calls++;
    verb.samples.add(ms);
    const last: LastCall = { at: now, verb: verbName, ms: round(ms), outcome, tokens: null };
    agent.last.push(last);
    if (agent.last.length > STATS_LIMITS.lastCalls) agent.last.shift();
    if (tokens !== undefined) addTokens(agent, verb, last, tokens);
    else if (text !== undefined) this.countLater({ text, agent, verb, last });
    if (error) {
      this.errors.push({ at: new Date(now).toISOString(), agent: agentId, verb: verbName, code: error.code, message: error.message.slice(0, 300) });
      if (this.errors.length > STATS_LIMITS.recentErrors) this.errors.shift();
    }
    if (connectionId !== undefined) this.seeConnection(connectionId, agentId, now);
  }

  /** Every agent's statistics, most recently active first. */
  agentsView() {
    this.fold();
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
    this.fold();
    return [...this.connections.values()].sort((a, b) => b.lastAt - a.lastAt);
  }

  /** The latest failed or refused calls, newest first. */
  recentErrors(limit = 20) {
    this.fold();
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
    this.fold();
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
