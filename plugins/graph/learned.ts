/**
 * Ranking weights learned from agents' feedback (`learn`): a bias per node, an association between
 * query words and nodes, and multipliers on edges between nodes confirmed together. Two layers:
 * the team layer (namespace `learned`, applied to every agent's ranking) and one layer per agent
 * (namespace `learned@<agent id>`, applied only to that agent's ranking). An agent ranks with the
 * sum of both (bias and association added then clamped, edge factors multiplied then clamped).
 * One revision counter in `learned` tells other processes to reload. Querying never writes here.
 * With a team store attached (`useTeamStore`, learned-team.ts) the team layer lives there, shared by
 * every server of the repository; agent layers, checkpoints and agent events stay local.
 *
 * How ranking verbs apply it: score × exp(bias) × exp(2.5 × association(query words, node)), and
 * propagation multiplies an edge's weight by its learned factor (the product capped at 1).
 */
import type { CodeGraphEngine } from './engine/engine.ts';
import type { CodeGraph, GraphNode } from './engine/graph.ts';
import { clamp, EDGE_FACTOR_RANGE, eventKey, Layer, MAX_ASSOCIATION, MAX_BIAS, MAX_EVENTS, SEP } from './learned-layer.ts';
import { TeamLearned, type LearnedTeamStore } from './learned-team.ts';

export { MAX_BIAS } from './learned-layer.ts';
export type { LearnedTeamStore, SharedOps, SharedRow } from './learned-team.ts';

export const LEARNED_NAMESPACE = 'learned';

export type Feedback = 'correct' | 'wrong' | 'partial';

/** What the store keeps per node that received feedback. */
export interface LearnedNode {
  bias: number;
  correct: number;
  wrong: number;
  partial: number;
  updatedAt: number;
  /** Where the node was when feedback was given (evidence for cross_verify). */
  path: string;
  lines: [number, number];
  lastQuery: string;
}

/** One feedback event, kept for drift and reports (the newest MAX_EVENTS). */
export interface FeedbackEvent {
  at: number;
  agent: string;
  query: string;
  feedback: Feedback;
  nodes: string[];
  strength: number;
  /** Absent on events recorded before agent scopes existed (they were team feedback). */
  scope?: LearnScope;
}

/** Whose ranking feedback changes: the calling agent's only, or every agent's. */
export type LearnScope = 'agent' | 'team';

export interface LearnInput {
  agent: string;
  scope: LearnScope;
  query: string;
  /** Query words (already tokenized). */
  words: string[];
  feedback: Feedback;
  nodes: GraphNode[];
  strength: number;
  /** Existing edges between the given nodes (and their members), as [source id, target id]. */
  pairs: [string, string][];
}

export interface LearnReport {
  nodes: { id: string; bias: [before: number, after: number]; association: [before: number, after: number] }[];
  edges: { source: string; target: string; factor: [before: number, after: number] }[];
  revision: number;
}

/** Learned weights at one moment: bias and last update per node, factor per "source\u0001target" edge. */
export interface LearnedSnapshot {
  revision: number;
  nodes: Map<string, number>;
  nodeUpdatedAt: Map<string, number>;
  edges: Map<string, number>;
}
interface StoredSnapshot {
  revision: number;
  nodes: Record<string, number>;
  nodeUpdatedAt: Record<string, number>;
  edges: Record<string, number>;
}
const CHECKPOINT_PREFIX = 'checkpoint:';

/** Agent layers kept in memory at once (each is a few maps; reloaded from the store on demand). */
const MAX_AGENT_LAYERS = 256;

/** The memory namespace of an agent's private layer. */
export function agentNamespace(agentId: string): string {
  return `${LEARNED_NAMESPACE}@${agentId}`;
}

/** The learned weights of one workspace (see the module comment). */
export class LearnedWeights {
  private rev = -1;
  private team = new Layer(LEARNED_NAMESPACE);
  private agents = new Map<string, Layer>();
  private edgeCache = new Map<string, { version: number; rev: number; graph: CodeGraph; factors: Float32Array | null }>();
  /** The team layer's shared store, when one is attached. */
  private shared: TeamLearned | null = null;

  constructor(
    private readonly engine: CodeGraphEngine,
    private readonly writable: boolean,
  ) {}

  /** Reloads from the store when another process (or this one) changed it; one indexed read otherwise. */
  private sync(): void {
    let rev: number;
    try {
      rev = Number(this.engine.memory.get<number>(LEARNED_NAMESPACE, 'rev')?.value ?? 0);
    } catch {
      if (!this.shared) return; // no store (never opened): nothing learned yet
      rev = 0;
    }
    // With a team store: the local counter (agent layers) plus the team's; the mirror's layer replaces the team one.
    const shared = this.shared;
    if (shared) rev += shared.rev;
    if (rev === this.rev && (!shared || this.team === shared.layer)) return;
    this.team = shared ? shared.layer : new Layer(LEARNED_NAMESPACE).load(this.engine);
    this.agents.clear();
    this.rev = rev;
    this.edgeCache.clear();
  }

  /**
   * Keeps the team layer in a shared store from now on (the state plugin's team store); returns the
   * detach function. Local team feedback is not moved (`m1nd store import` copies it).
   */
  useTeamStore(store: LearnedTeamStore): () => void {
    this.shared?.detach();
    const shared = new TeamLearned(store, LEARNED_NAMESPACE);
    this.shared = shared;
    this.rev = -1;
    return () => {
      shared.detach();
      if (this.shared !== shared) return;
      this.shared = null;
      this.rev = -1;
    };
  }

  /** True when team feedback goes to a shared store. */
  get teamShared(): boolean {
    return this.shared !== null;
  }

  /** Brings the team layer up to date with the shared store (a no-op without one, or when nothing changed). */
  async refresh(): Promise<void> {
    await this.shared?.refresh();
  }

  /** An agent's private layer (loaded on first use after each change). */
  private layerOf(agent: string): Layer {
    let layer = this.agents.get(agent);
    if (layer) return layer;
    if (this.agents.size >= MAX_AGENT_LAYERS) this.agents.clear();
    try {
      layer = new Layer(agentNamespace(agent)).load(this.engine);
    } catch {
      layer = new Layer(agentNamespace(agent)); // no store: nothing learned
    }
    this.agents.set(agent, layer);
    return layer;
  }

  /** The agent's layer when it holds anything, for the combined reads. */
  private privateLayer(agent: string | undefined): Layer | undefined {
    if (agent === undefined) return undefined;
    const layer = this.layerOf(agent);
    return layer.empty ? undefined : layer;
  }

  /** The store revision of what is loaded (0 = nothing learned). */
  get revision(): number {
    this.sync();
    return Math.max(0, this.rev);
  }

  /** True when no team feedback was ever recorded. */
  get empty(): boolean {
    this.sync();
    return this.team.empty;
  }

  /** The team-level learned record of a node, if any. */
  node(id: string): LearnedNode | undefined {
    this.sync();
    return this.team.nodeMap.get(id);
  }

  /** Every node with team-level feedback. */
  nodes(): [string, LearnedNode][] {
    this.sync();
    return [...this.team.nodeMap];
  }

  /** Mean association of the query words with a node for an agent (team + its own), in [-1, 1]. */
  association(words: readonly string[], id: string, agent?: string): number {
    this.sync();
    const own = this.privateLayer(agent);
    return clamp(this.team.association(words, id) + (own?.association(words, id) ?? 0), -MAX_ASSOCIATION, MAX_ASSOCIATION);
  }

  /** The ranking multiplier for a node under a query: exp(bias) × exp(2.5 × association). */
  factor(words: readonly string[], id: string, agent?: string): number {
    return this.scorer(words, agent)(id);
  }

  /** A function giving `factor(words, id, agent)` for many nodes, reading the store once (for ranking loops). */
  scorer(words: readonly string[], agent?: string): (id: string) => number {
    this.sync();
    const own = this.privateLayer(agent);
    if (this.team.nodeMap.size === 0 && this.team.terms.size === 0 && !own) return () => 1;
    const assoc = this.team.associated(words);
    if (own) own.associated(words, assoc);
    const teamNodes = this.team.nodeMap;
    const ownNodes = own?.nodeMap;
    return (id) => {
      const bias = clamp((teamNodes.get(id)?.bias ?? 0) + (ownNodes?.get(id)?.bias ?? 0), -MAX_BIAS, MAX_BIAS);
      const a = clamp(assoc.get(id) ?? 0, -MAX_ASSOCIATION, MAX_ASSOCIATION);
      return bias === 0 && a === 0 ? 1 : Math.exp(bias + 2.5 * a);
    };
  }

  /** Nodes the query words are associated with for an agent (positive or negative), for seeding. */
  associated(words: readonly string[], agent?: string): Map<string, number> {
    this.sync();
    const out = this.team.associated(words);
    this.privateLayer(agent)?.associated(words, out);
    return out;
  }

  /** Per-edge multipliers for the graph's current version and an agent, or null when no edge was learned. */
  edgeFactors(g: CodeGraph, agent?: string): Float32Array | null {
    this.sync();
    const own = this.privateLayer(agent);
    const layers = [this.team, own].filter((l): l is Layer => l !== undefined && l.edges.size > 0);
    if (layers.length === 0) return null;
    // Agents without learned edges of their own share the team's array.
    const cacheKey = own && own.edges.size > 0 ? `@${agent}` : '';
    const c = this.edgeCache.get(cacheKey);
    if (c && c.graph === g && c.version === g.version && c.rev === this.rev) return c.factors;
    const factors = new Float32Array(g.edgeCapacity).fill(1);
    let any = false;
    for (const layer of layers) {
      for (const [key, { factor }] of layer.edges) {
        const [src, tgt] = key.split(SEP);
        const s = g.indexOf(src);
        const t = g.indexOf(tgt);
        if (s < 0 || t < 0 || s + 1 >= g.outOffsets.length) continue;
        for (let k = g.outOffsets[s]; k < g.outOffsets[s + 1]; k++) {
          const e = g.outEdges[k];
          if (g.edgeTarget[e] === t) {
            factors[e] = clamp(factors[e] * factor, EDGE_FACTOR_RANGE[0], EDGE_FACTOR_RANGE[1]);
            any = true;
          }
        }
      }
    }
    if (this.edgeCache.size >= 16) this.edgeCache.clear();
    this.edgeCache.set(cacheKey, { graph: g, version: g.version, rev: this.rev, factors: any ? factors : null });
    return any ? factors : null;
  }

  /** Team-level learned edge multipliers by "source id → target id". */
  edgeEntries(): [source: string, target: string, factor: number][] {
    this.sync();
    return [...this.team.edges].map(([k, v]) => {
      const [s, t] = k.split(SEP);
      return [s, t, v.factor];
    });
  }

  /** A copy of the current team-level weights (for drift baselines). */
  snapshot(): LearnedSnapshot {
    this.sync();
    const t = this.team;
    return {
      revision: Math.max(0, this.rev),
      nodes: new Map([...t.nodeMap].map(([k, v]) => [k, v.bias])),
      nodeUpdatedAt: new Map([...t.nodeMap].map(([k, v]) => [k, v.updatedAt])),
      edges: new Map([...t.edges].map(([k, v]) => [k, v.factor])),
    };
  }

  /** Stores the current team-level weights under a checkpoint name (replacing any earlier record of that name). */
  saveCheckpoint(name: string): void {
    if (!this.writable) throw new Error('learned weights are read-only on this server');
    const s = this.snapshot();
    const record: StoredSnapshot = { revision: s.revision, nodes: Object.fromEntries(s.nodes), nodeUpdatedAt: Object.fromEntries(s.nodeUpdatedAt), edges: Object.fromEntries(s.edges) };
    this.engine.memory.set(LEARNED_NAMESPACE, `${CHECKPOINT_PREFIX}${name}`, record);
  }

  /** The weights a checkpoint recorded, or null when it recorded none (made before checkpoints kept them). */
  checkpoint(name: string): LearnedSnapshot | null {
    let stored: StoredSnapshot | undefined;
    try {
      stored = this.engine.memory.get<StoredSnapshot>(LEARNED_NAMESPACE, `${CHECKPOINT_PREFIX}${name}`)?.value;
    } catch {
      return null;
    }
    if (!stored) return null;
    return {
      revision: stored.revision,
      nodes: new Map(Object.entries(stored.nodes)),
      nodeUpdatedAt: new Map(Object.entries(stored.nodeUpdatedAt)),
      edges: new Map(Object.entries(stored.edges)),
    };
  }

  /** The newest feedback events, oldest first (local ones and, with a team store, the team's). */
  events(limit = 50): FeedbackEvent[] {
    let local: FeedbackEvent[];
    try {
      local = this.engine.memory.list<FeedbackEvent>(LEARNED_NAMESPACE, 'event:', MAX_EVENTS * 2).map((e) => e.value);
    } catch {
      local = [];
    }
    // With a team store, team events come from there (local ones of team scope predate it; store_import copies them).
    const all = this.shared ? [...local.filter((e) => e.scope === 'agent'), ...this.shared.events].sort((a, b) => a.at - b.at) : local;
    return all.slice(-limit);
  }

  /**
   * Applies feedback and persists it: team scope goes to the team store when one is attached
   * (async, one transaction there), everything else to the local store as `record` does.
   */
  async learn(input: LearnInput): Promise<LearnReport> {
    if (input.scope !== 'team' || !this.shared) return this.record(input);
    if (!this.writable) throw new Error('learned weights are read-only on this server');
    const report = await this.shared.record(input, Date.now());
    this.rev = -1;
    await this.shared.refresh().catch(() => undefined); // the next call reloads otherwise
    return report;
  }

  /**
   * Applies feedback to the agent's layer (scope `agent`) or the team layer (scope `team`) and
   * persists it in one transaction: correct raises (partial half as much) and wrong lowers each node's
   * bias by strength/2 and its association with the query words by strength; correct/partial also
   * strengthen the edges among the given nodes. Reported before/after values are the layer's own.
   */
  record(input: LearnInput): LearnReport {
    if (!this.writable) throw new Error('learned weights are read-only on this server');
    if (input.scope === 'team' && this.shared) throw new Error('team feedback goes to the team store: call learn()');
    const now = Date.now();
    const mem = this.engine.memory;
    const report: LearnReport = { nodes: [], edges: [], revision: 0 };
    try {
      mem.transaction(() => {
        // Inside the write transaction: what another process committed is loaded before we add to it.
        this.sync();
        const layer = input.scope === 'team' ? this.team : this.layerOf(input.agent);
        const { rows, event } = layer.apply(input, now, report);
        for (const [key, value] of rows) mem.set(layer.namespace, key, value);
        mem.set(LEARNED_NAMESPACE, eventKey(now), event);
        const events = mem.list(LEARNED_NAMESPACE, 'event:', MAX_EVENTS * 2);
        for (const old of events.slice(0, Math.max(0, events.length - MAX_EVENTS))) mem.delete(LEARNED_NAMESPACE, old.key);
        // One revision for every layer: any change makes every process reload what it ranks with.
        const rev = Number(mem.get<number>(LEARNED_NAMESPACE, 'rev')?.value ?? 0) + 1;
        mem.set(LEARNED_NAMESPACE, 'rev', rev);
        this.rev = rev + (this.shared?.rev ?? 0);
        report.revision = rev;
      });
    } catch (error) {
      this.rev = -1; // the in-memory copy may be half-updated: reload from the store next time
      throw error;
    }
    this.edgeCache.clear();
    return report;
  }
}
