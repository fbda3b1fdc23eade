/** Schema pieces every verb family shares. */
import { Type } from '@sinclair/typebox';

/** The `agent_id` parameter every verb takes (m1nd-compatible: required). */
export const AgentId = Type.String({ minLength: 1 });

/** A string parameter limited to `values` (advertised compactly as a JSON Schema `enum`). */
export function StringEnum<const T extends readonly string[]>(values: T, options: { default?: T[number]; description?: string } = {}) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as import('@sinclair/typebox').TUnion<{ [K in keyof T]: import('@sinclair/typebox').TLiteral<T[K]> }[number][]>;
}
