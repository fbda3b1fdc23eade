/**
 * Where perspectives live: the workspace store (`engine.memory`, namespace `perspectives`, one row
 * per perspective keyed by its id), so they survive restarts and are seen by every server process
 * on the workspace. A read-only server never writes the store: it reads stored perspectives and
 * keeps new ones and changes in session memory (lost at restart), and says so.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError, type SessionStore } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { LIMITS, type Perspective } from './state.ts';

export const NAMESPACE = 'perspectives';
const OVERLAY = 'perspective:overlay';

/** A short stable tag of an agent id (ids carry it, so lookups and listings stay per agent). */
export function agentTag(agentId: string): string {
  return createHash('sha1').update(agentId).digest('hex').slice(0, 6);
}

/** The perspectives of every agent, behind ownership checks and per-agent limits. */
export class PerspectiveBook {
  constructor(
    private readonly graph: GraphService,
    private readonly session: SessionStore,
  ) {}

  /** True when perspectives are written to the store (false on a read-only server). */
  get persisted(): boolean {
    return this.graph.writable;
  }

  /** How this server keeps perspectives, in words. */
  get storage(): string {
    return this.persisted ? 'store (survives restarts)' : 'session memory: the server is read-only, so perspectives are not stored and end with the server';
  }

  private overlay(agentId: string): Map<string, Perspective | null> {
    return this.session.state(agentId, OVERLAY, () => new Map<string, Perspective | null>());
  }

  /** A new perspective id for this agent. */
  newId(agentId: string): string {
    return `persp_${agentTag(agentId)}_${randomBytes(3).toString('hex')}`;
  }

  /** This agent's perspectives, oldest first. */
  list(agentId: string): Perspective[] {
    const byId = new Map<string, Perspective>();
    for (const row of this.graph.engine.memory.list<Perspective>(NAMESPACE, `persp_${agentTag(agentId)}_`, 10_000)) {
      if (row.value.agent_id === agentId) byId.set(row.key, row.value);
    }
    for (const [id, p] of this.overlay(agentId)) {
      if (p === null) byId.delete(id);
      else byId.set(id, p);
    }
    return [...byId.values()].sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
  }

  /** A perspective the calling agent owns; STATE_NOT_OWNER / STATE_NOT_FOUND otherwise. */
  load(agentId: string, id: string): Perspective {
    const mine = this.overlay(agentId);
    const local = mine.get(id);
    if (local === null) throw this.notFound(agentId, id);
    const found = local ?? this.graph.engine.memory.get<Perspective>(NAMESPACE, id)?.value ?? this.inOtherOverlays(agentId, id);
    if (!found) throw this.notFound(agentId, id);
    if (found.agent_id !== agentId) {
      throw new M1ndError(ErrorCodes.STATE_NOT_OWNER, `perspective "${id}" belongs to another agent; agent "${agentId}" cannot drive it`, {
        hint: `open your own: perspective_start({"agent_id":"${agentId}","query":"…"}); perspective_list({"agent_id":"${agentId}"}) lists yours`,
        data: { perspective_id: id },
      });
    }
    return found;
  }

  private inOtherOverlays(agentId: string, id: string): Perspective | undefined {
    for (const a of this.session.listAgents()) {
      if (a.agentId === agentId) continue;
      const p = this.overlay(a.agentId).get(id);
      if (p) return p;
    }
    return undefined;
  }

  private notFound(agentId: string, id: string): M1ndError {
    return new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no perspective "${id}" for agent "${agentId}" (closed, or never opened on this workspace)`, {
      hint: `perspective_list({"agent_id":"${agentId}"}) lists yours; perspective_start opens one`,
      data: { perspective_id: id },
    });
  }

  /** Refuses a new (or grown) perspective beyond the agent's count or memory limit. */
  checkRoom(agentId: string, incoming: Perspective): void {
    const mine = this.list(agentId).filter((p) => p.id !== incoming.id);
    const bytes = mine.reduce((sum, p) => sum + JSON.stringify(p).length, 0) + JSON.stringify(incoming).length;
    if (mine.length < LIMITS.perspectivesPerAgent && bytes <= LIMITS.bytesPerAgent) return;
    const oldest = mine[0];
    const what = mine.length >= LIMITS.perspectivesPerAgent ? `${mine.length} open perspectives (limit ${LIMITS.perspectivesPerAgent})` : `${bytes} bytes of perspectives (limit ${LIMITS.bytesPerAgent})`;
    throw new M1ndError(ErrorCodes.STATE_LIMIT, `agent "${agentId}" has ${what}`, {
      hint: `close one first: perspective_close({"agent_id":"${agentId}","perspective_id":"${oldest?.id ?? '…'}"}); perspective_list shows them all`,
      data: { open: mine.length, bytes, limits: { perspectives: LIMITS.perspectivesPerAgent, bytes: LIMITS.bytesPerAgent } },
    });
  }

  /** Stores a perspective (store, or session memory on a read-only server), within the agent's limits. */
  save(p: Perspective): void {
    this.checkRoom(p.agent_id, p);
    if (this.persisted) this.graph.engine.memory.set(NAMESPACE, p.id, p);
    else this.overlay(p.agent_id).set(p.id, p);
  }

  /** Deletes a perspective. */
  remove(p: Perspective): void {
    if (this.persisted) this.graph.engine.memory.delete(NAMESPACE, p.id);
    else this.overlay(p.agent_id).set(p.id, null);
  }

  /** Usage against the limits, for listings. */
  usage(agentId: string, mine = this.list(agentId)) {
    return {
      open: mine.length,
      bytes: mine.reduce((sum, p) => sum + JSON.stringify(p).length, 0),
      limits: { perspectives: LIMITS.perspectivesPerAgent, bytes: LIMITS.bytesPerAgent },
    };
  }
}
