/**
 * The claim book: claims stored in the state store (namespace `memory.claims`, one row per claim),
 * shared by every agent and server of the workspace — across machines when a team store is set;
 * private (`agent`) claims always stay in the local store. Claims are data
 * from agents: stored and returned verbatim, never interpreted.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { StateRow, StateService, StateStore } from '../state/api.ts';
import type { EvidenceAnchor } from './evidence.ts';
import { canRead, type Scope } from './scopes.ts';
import { jaccard, words } from './similarity.ts';

export const CLAIMS_NAMESPACE = 'memory.claims';
/** Word-set similarity at which a new claim is the same as a stored one. */
export const DUPLICATE_SIMILARITY = 0.8;

export const CLAIM_KINDS = ['fact', 'decision', 'convention', 'gotcha', 'todo'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** Where a team claim came from (set by promote). */
export interface ClaimOrigin {
  claim_id: string;
  agent_id: string;
  workspace: string;
  commit: string | null;
  promoted_by: string;
  promoted_at: string;
  reason: string;
}

/** A claim as stored. */
export interface Claim {
  id: string;
  text: string;
  kind: ClaimKind;
  scope: Scope;
  author: string;
  /** What the claim is about (the reference's node_label), verbatim. */
  topic?: string;
  title?: string;
  confidence: number;
  evidence: EvidenceAnchor[];
  created_at: number;
  /** When the evidence was last hashed (memorize or re-verify). */
  verified_at: number;
  supersedes?: string;
  superseded_by?: string;
  origin?: ClaimOrigin;
  /** Team copies made of this claim. */
  promoted_to?: string[];
  /** When a person last edited the claim through its Markdown file (mirror-edits.ts). */
  edited_by_hand_at?: number;
  /** A group the author files it under (the reference's `namespace`), shown with it. */
  namespace?: string;
  /** The author's state label (the reference's `state`, e.g. draft or verified), shown with it. */
  state?: string;
}

/** Limits on what one claim and one agent may store. */
export interface ClaimLimits {
  maxClaimChars: number;
  maxEvidence: number;
  maxClaimsPerAgent: number;
}

const byAge = (a: Claim, b: Claim) => a.created_at - b.created_at || a.id.localeCompare(b.id);

/** Every claim of the workspace, with the read rule applied per caller. */
export class ClaimBook {
  // Parsed claims and their word sets, valid while the stores' stamps are unchanged (any server writing a claim changes them).
  private cache: { stamp: string; claims: Claim[]; words: Map<string, Set<string>> } | null = null;
  // The version of each claim row as last read: saves compare-and-swap against it, so no server's write is lost silently.
  private readonly versions = new Map<string, number>();

  constructor(private readonly state: StateService) {}

  /** Where a claim lives: private claims stay on this machine, shared ones go to the team store. */
  private storeOf(scope: Scope): StateStore {
    return scope === 'agent' ? this.state.local : this.state.team;
  }

  private stores(): StateStore[] {
    return this.state.team === this.state.local ? [this.state.team] : [this.state.team, this.state.local];
  }

  /** All claims, oldest first (shared: callers must not mutate them). */
  async all(): Promise<readonly Claim[]> {
    const stores = this.stores();
    const stamp = (await Promise.all(stores.map((s) => s.stamp(CLAIMS_NAMESPACE)))).join('|');
    if (this.cache?.stamp === stamp) return this.cache.claims;
    const split = stores.length > 1;
    const rows = (await Promise.all(stores.map((s) => s.list<Claim>(CLAIMS_NAMESPACE, 'c_', 1_000_000)))).flatMap((list, i) =>
      // With a team store, each store serves only the claims that belong there.
      split ? list.filter((r) => (r.value.scope === 'agent') === (stores[i] === this.state.local)) : list,
    );
    for (const r of rows) this.versions.set(r.key, r.version);
    const claims = rows.map((r) => r.value).sort(byAge);
    this.cache = { stamp, claims, words: new Map() };
    return claims;
  }

  /** The word set of a claim's text (cached with the claims). */
  wordsOf(c: Claim): Set<string> {
    const cached = this.cache?.words.get(c.id);
    if (cached) return cached;
    const w = words(c.text);
    this.cache?.words.set(c.id, w);
    return w;
  }

  /** Claims `agentId` may read, in the given scopes. */
  async visible(agentId: string, scopes: readonly Scope[] = ['agent', 'project', 'team']): Promise<Claim[]> {
    return (await this.all()).filter((c) => scopes.includes(c.scope) && canRead(agentId, c.scope, c.author));
  }

  /** A claim the caller may read; STATE_NOT_FOUND otherwise (a private claim of someone else is not found). */
  async get(agentId: string, id: string): Promise<Claim> {
    let claim: Claim | undefined;
    for (const store of this.stores()) {
      const row = await store.get<Claim>(CLAIMS_NAMESPACE, id);
      if (row && (this.stores().length === 1 || (row.value.scope === 'agent') === (store === this.state.local))) {
        this.versions.set(id, row.version);
        claim = row.value;
        break;
      }
    }
    if (!claim || !canRead(agentId, claim.scope, claim.author)) {
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no claim "${id}" you can read on this workspace`, {
        hint: 'claim ids come from memorize, orient or north results',
        data: { claim_id: id },
      });
    }
    return claim;
  }

  /** The stored claim most similar to `text` in a scope the author can read, when near-identical. */
  async duplicateOf(author: string, scope: Scope, text: string): Promise<{ claim: Claim; similarity: number } | null> {
    const mine = words(text);
    let best: { claim: Claim; similarity: number } | null = null;
    for (const c of await this.visible(author, [scope])) {
      if (c.superseded_by) continue;
      const s = jaccard(mine, this.wordsOf(c));
      if (s >= DUPLICATE_SIMILARITY && (!best || s > best.similarity)) best = { claim: c, similarity: Math.round(s * 1000) / 1000 };
    }
    return best;
  }

  /** Refuses claims beyond the per-claim and per-agent limits (coded errors with the limit). */
  async checkLimits(author: string, texts: readonly { text: string; evidence: number }[], limits: ClaimLimits): Promise<void> {
    for (const t of texts) {
      if (t.text.length > limits.maxClaimChars) {
        throw new M1ndError(ErrorCodes.MEMORY_CLAIM_TOO_LARGE, `a claim has ${t.text.length} characters (limit ${limits.maxClaimChars})`, {
          hint: 'split it into several claims, each one fact with its own evidence',
          data: { chars: t.text.length, limit: limits.maxClaimChars },
        });
      }
      if (t.evidence > limits.maxEvidence) {
        throw new M1ndError(ErrorCodes.MEMORY_CLAIM_TOO_LARGE, `a claim cites ${t.evidence} pieces of evidence (limit ${limits.maxEvidence})`, {
          hint: 'cite the few nodes or line ranges that prove it',
          data: { evidence: t.evidence, limit: limits.maxEvidence },
        });
      }
    }
    const held = (await this.all()).filter((c) => c.author === author).length;
    if (held + texts.length > limits.maxClaimsPerAgent) {
      throw new M1ndError(ErrorCodes.MEMORY_QUOTA, `agent "${author}" holds ${held} claims; ${texts.length} more exceed the limit of ${limits.maxClaimsPerAgent}`, {
        hint: 'supersede outdated claims (memorize with supersedes) instead of adding new ones, or raise maxClaimsPerAgent in m1nd.config.ts options.memory',
        data: { held, adding: texts.length, limit: limits.maxClaimsPerAgent },
      });
    }
  }

  /** A new claim id. */
  newId(): string {
    return `c_${randomBytes(5).toString('hex')}`;
  }

  /**
   * Writes claims in one transaction per store (all or none): a new claim only if its id is free, a
   * changed one only if its row still has the version this server read — otherwise STATE_CONFLICT
   * (another server changed it meanwhile) and nothing is written.
   */
  async save(claims: readonly Claim[]): Promise<void> {
    for (const store of this.stores()) {
      const mine = this.stores().length === 1 ? claims : claims.filter((c) => (c.scope === 'agent') === (store === this.state.local));
      if (mine.length === 0) continue;
      const written = await store.transaction(async (tx) => {
        const out: StateRow[] = [];
        for (const c of mine) {
          const row = await tx.put(CLAIMS_NAMESPACE, c.id, c, { ifVersion: this.versions.get(c.id) ?? null });
          if (!row) {
            this.versions.delete(c.id);
            throw new M1ndError(ErrorCodes.STATE_CONFLICT, `claim "${c.id}" was changed by another agent or server while this call updated it; nothing was written`, {
              hint: 'repeat the call: it reads the current claims again',
              data: { claim_id: c.id },
            });
          }
          out.push(row);
        }
        return out;
      });
      for (const row of written) this.versions.set(row.key, row.version);
    }
    this.cache = null;
  }
}
