/**
 * Who may read a memory entry. Three scopes: `agent` (private to its author), `project` (every agent
 * of the workspace) and `team` (promoted, shared doctrine). The reference's `tier`/`brain` names map
 * onto them: project → project, medulla → team, project+medulla and all-brains → both.
 */
import { StringEnum } from '../../core/index.ts';

export const SCOPES = ['agent', 'project', 'team'] as const;
export type Scope = (typeof SCOPES)[number];

export const TIERS = ['project', 'medulla', 'project+medulla', 'all-brains'] as const;
export type Tier = (typeof TIERS)[number];

/** The `tier` parameter (reference names). */
export const TierParam = StringEnum(TIERS, { description: 'project, medulla (team), project+medulla (default) or all-brains' });

/** The scopes a reader's tier covers; the caller's own private entries are always included. */
export function scopesOfTier(tier: Tier | undefined): Scope[] {
  if (tier === 'project') return ['agent', 'project'];
  if (tier === 'medulla') return ['team'];
  return ['agent', 'project', 'team'];
}

/** The scope a write with this tier lands in (a write goes to one place: `project` for the combined tiers). */
export function writeScopeOfTier(tier: Tier | undefined): Scope {
  return tier === 'medulla' ? 'team' : 'project';
}

/** True when `agentId` may read an entry of `scope` written by `author`. */
export function canRead(agentId: string, scope: Scope, author: string): boolean {
  return scope !== 'agent' || author === agentId;
}
