/** The schema of a claim (hypothesis or conclusion) as agents pass it, and its stored form. */
import { Type, type Static } from '../../../core/index.ts';
import type { Claim } from './trail-book.ts';

/** A claim: a sentence, or a sentence with a confidence and the node ids it rests on. */
export const ClaimInput = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      statement: Type.String({ minLength: 1 }),
      confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      supporting_nodes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 50 })),
    },
    { additionalProperties: false },
  ),
]);

/** A claim as stored, with its supporting nodes resolved through `resolve` (unknown names kept as given). */
export function toClaim(input: Static<typeof ClaimInput>, resolve: (name: string) => string): Claim {
  if (typeof input === 'string') return { statement: input, supporting_nodes: [] };
  return {
    statement: input.statement,
    ...(input.confidence !== undefined ? { confidence: input.confidence } : {}),
    supporting_nodes: [...new Set((input.supporting_nodes ?? []).map(resolve))],
  };
}

/** A statement normalised for de-duplication. */
export function claimKey(statement: string): string {
  return statement.toLowerCase().replace(/\s+/g, ' ').trim();
}
