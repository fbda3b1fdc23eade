/**
 * The memory plugin's public entry: the `memory` service's types (claims anchored to code, their
 * computed freshness). Consume it with `requires: ['memory']` and `ctx.service<MemoryService>('memory')`.
 */
export type { Claim, ClaimKind } from './claims.ts';
export type { EvidenceAnchor, EvidenceChange, Freshness } from './evidence.ts';
export type { ClaimView, MemoryService } from './service.ts';
export { budgetReport, MISSIONS_NAMESPACE } from './missions/book.ts';
export type { Mission, MissionEvent } from './missions/book.ts';
