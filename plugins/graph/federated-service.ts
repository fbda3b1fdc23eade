/**
 * Which graph an agent's graph verbs answer from: the workspace's, or — after `federate` and
 * while the agent keeps it on — the federated view (federated-view.ts). The choice is per agent
 * (session state), so one agent exploring the federation never changes another's answers. The
 * view is read-only: writers get a refusal naming the way back to the workspace graph.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ErrorCodes, M1ndError, type SessionStore } from '../../core/index.ts';
import type { CodeGraphEngine } from './engine/engine.ts';
import { FederatedEngine, NAMESPACE_SEPARATOR, type FederationSpec } from './federated-view.ts';
import { asHostError, engineCall, fileSymbolsOf, type GraphService } from './service.ts';

const STATE_KEY = 'graph:federated-view';
const TO_WORKSPACE = 'federation_view({"agent_id":"…","view":"workspace"})';

/** The federation a graph service can serve, and each agent's choice of view. */
export class FederationViews {
  private engine: FederatedEngine | null = null;
  private view: GraphService | null = null;

  constructor(
    private readonly base: GraphService,
    private readonly workspace: CodeGraphEngine,
    private readonly session: SessionStore,
  ) {}

  /** Serves these members from now on (the previous federation's sibling engines are closed). */
  async define(spec: FederationSpec): Promise<FederatedEngine> {
    if (this.engine) {
      const kept = new Set(spec.members.map((m) => m.engine));
      for (const m of this.engine.members) if (!m.own && !kept.has(m.engine)) await m.engine.close();
      this.engine.redefine(spec);
    } else {
      this.engine = new FederatedEngine(this.workspace, spec, this.workspace.storeDir);
      this.view = viewService(this.base, this.engine);
    }
    // The namespaced graph, its seek index and PageRank build off the call path (the first query waits for what is left).
    const engine = this.engine;
    setImmediate(() => {
      if (this.engine !== engine) return;
      engine
        .ensureFresh()
        .then(() => engine.warmIndexes())
        .catch(() => undefined); // the next query reports it
    }).unref();
    return this.engine;
  }

  /** The federated engine, when a federation is defined in this process. */
  get current(): FederatedEngine | null {
    return this.engine;
  }

  /** Turns the federated view on or off for an agent's graph verbs. */
  use(agentId: string, on: boolean): void {
    this.session.state(agentId, STATE_KEY, () => ({ on: false })).on = on;
  }

  /** Whether the agent's graph verbs answer from the federated view. */
  using(agentId: string): boolean {
    return this.engine !== null && this.session.state(agentId, STATE_KEY, () => ({ on: false })).on;
  }

  /** The graph service an agent's read verbs should query: the federated view when it chose it, else the workspace's. */
  serviceFor(agentId: string): GraphService {
    return this.view && this.using(agentId) ? this.view : this.base;
  }

  /** Closes the sibling engines (at shutdown). */
  async close(): Promise<void> {
    await this.engine?.close();
    this.engine = null;
    this.view = null;
  }
}

/** The read-only graph service over the federated engine. */
function viewService(base: GraphService, engine: FederatedEngine): GraphService {
  const split = (text: string) => {
    const at = text.indexOf(NAMESPACE_SEPARATOR);
    return at > 0 ? { ns: text.slice(0, at), rest: text.slice(at + NAMESPACE_SEPARATOR.length) } : null;
  };
  const service: GraphService = {
    apiVersion: base.apiVersion,
    engine,
    writable: false,
    boosts: base.boosts,
    learned: base.learned,
    registerParseExtension: (spec) => base.registerParseExtension(spec),
    get federation() {
      return base.federation;
    },
    run: engineCall,
    async fresh() {
      try {
        return await engine.ensureFresh();
      } catch (error) {
        throw asHostError(error);
      }
    },
    async requireGraph() {
      await service.fresh();
      if (engine.graph.nodeCount === 0) {
        throw new M1ndError(ErrorCodes.GRAPH_EMPTY, 'the federated view holds no nodes', { hint: 'call federate with the repositories again, or switch back: ' + TO_WORKSPACE });
      }
      return engine;
    },
    node(text) {
      const match = engine.findNodes(text, { limit: 1 })[0];
      return match && match.via !== 'seek' ? match.node : engineCall(() => engine.requireNode(text));
    },
    parseErrorFiles: (limit) => base.parseErrorFiles(limit),
    contentHash(path) {
      const p = engineCall(() => engine.resolvePath(path));
      try {
        return createHash('sha1').update(readFileSync(p.absolute)).digest('hex');
      } catch {
        return null;
      }
    },
    async reingestPaths() {
      throw new M1ndError(ErrorCodes.GATE_READ_ONLY, 'the federated view is read-only', { hint: `edit from the workspace graph: ${TO_WORKSPACE}, then retry` });
    },
    fileSymbols(path) {
      const s = split(path);
      if (!s) return [];
      return fileSymbolsOf(engine.graph, `${s.ns}${NAMESPACE_SEPARATOR}file:${s.rest}`, path);
    },
    async previewSymbols(path, text) {
      const s = split(path);
      const found = await base.previewSymbols(s ? s.rest : path, text);
      return found && s ? found.map((f) => ({ ...f, id: `${s.ns}${NAMESPACE_SEPARATOR}${f.id}` })) : found;
    },
  };
  return service;
}
