/**
 * The claim book: claims stored in the workspace store (`engine.memory`, namespace `memory.claims`,
 * one row per claim), shared by every agent and server process of the workspace. Claims are data
 * from agents: stored and returned verbatim, never interpreted.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
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
  // Parsed claims and their word sets, valid while the namespace's stamp is unchanged (any process writing a claim changes it).
  private cache: { stamp: string; claims: Claim[]; words: Map<string, Set<string>> } | null = null;

  constructor(private readonly graph: GraphService) {}

  /** All claims, oldest first (shared: callers must not mutate them). */
  all(): readonly Claim[] {
    const memory = this.graph.engine.memory;
    const stamp = memory.stamp(CLAIMS_NAMESPACE);
    if (this.cache?.stamp === stamp) return this.cache.claims;
    const claims = memory
      .list<Claim>(CLAIMS_NAMESPACE, 'c_', 1_000_000)
      .map((r) => r.value)
      .sort(byAge);
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
  visible(agentId: string, scopes: readonly Scope[] = ['agent', 'project', 'team']): Claim[] {
    return this.all().filter((c) => scopes.includes(c.scope) && canRead(agentId, c.scope, c.author));
  }

  /** A claim the caller may read; STATE_NOT_FOUND otherwise (a private claim of someone else is not found). */
  get(agentId: string, id: string): Claim {
    const claim = this.graph.engine.memory.get<Claim>(CLAIMS_NAMESPACE, id)?.value;
    if (!claim || !canRead(agentId, claim.scope, claim.author)) {
      throw new M1ndError(ErrorCodes.STATE_NOT_FOUND, `no claim "${id}" you can read on this workspace`, {
        hint: 'claim ids come from memorize, orient or north results',
        data: { claim_id: id },
      });
    }
    return claim;
  }

  /** The stored claim most similar to `text` in a scope the author can read, when near-identical. */
  duplicateOf(author: string, scope: Scope, text: string): { claim: Claim; similarity: number } | null {
    const mine = words(text);
    let best: { claim: Claim; similarity: number } | null = null;
    for (const c of this.visible(author, [scope])) {
      if (c.superseded_by) continue;
      const s = jaccard(mine, this.wordsOf(c));
      if (s >= DUPLICATE_SIMILARITY && (!best || s > best.similarity)) best = { claim: c, similarity: Math.round(s * 1000) / 1000 };
    }
    return best;
  }

  /** Refuses claims beyond the per-claim and per-agent limits (coded errors with the limit). */
  checkLimits(author: string, texts: readonly { text: string; evidence: number }[], limits: ClaimLimits): void {
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
    const held = this.all().filter((c) => c.author === author).length;
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

  /** Writes claims in one transaction (all or none); keeps the cache when nobody else wrote since it was read. */
  save(claims: readonly Claim[]): void {
    const memory = this.graph.engine.memory;
    memory.transaction(() => {
      const current = this.cache !== null && memory.stamp(CLAIMS_NAMESPACE) === this.cache.stamp;
      for (const c of claims) memory.set(CLAIMS_NAMESPACE, c.id, c);
      if (!current || !this.cache) {
        this.cache = null;
        return;
      }
      const byId = new Map(this.cache.claims.map((c) => [c.id, c]));
      for (const c of claims) {
        byId.set(c.id, structuredClone(c));
        this.cache.words.delete(c.id);
      }
      this.cache.claims = [...byId.values()].sort(byAge);
      this.cache.stamp = memory.stamp(CLAIMS_NAMESPACE);
    });
  }
}
