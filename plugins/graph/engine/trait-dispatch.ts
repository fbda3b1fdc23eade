/**
 * Rust trait dispatch: a call resolved to a trait's method (`self.remaining()` in a trait's default
 * method, `b.remaining()` on a `B: Buf` or a `&dyn Buf`) may run the method of any type that
 * implements the trait. Those methods are found by name and by what each `impl … for …` names
 * (class-hierarchy analysis over the workspace's impls; a type the workspace does not declare, such
 * as `[u8]`, counts): the call gets a `dispatches` edge to each. A call on a concrete type resolves to
 * that type's method and dispatches nowhere.
 */
import type { Dependencies, SymbolTables } from './resolution-tables.ts';

const NONE: readonly number[] = [];

/** `Bytes.remaining~2` → [`Bytes`, `remaining`]; null for a name without an owner. */
function split(qualifiedName: string): [owner: string, name: string] | null {
  const q = qualifiedName.replace(/[~#]\d+$/, '');
  const dot = q.lastIndexOf('.');
  return dot <= 0 ? null : [q.slice(0, dot), q.slice(dot + 1)];
}

/**
 * The implementations a call of `method` may run when it is a Rust trait's method: each method of
 * the same name whose owner type implements a trait of that name. Records the dependencies (the
 * method's name: an implementation appearing or going; the trait's: an impl header naming it changing).
 */
export function traitImplementations(tables: SymbolTables, method: number, deps: Dependencies): readonly number[] {
  const m = tables.node(method);
  if (m.kind !== 'method' || m.language !== 'rust' || !m.qualifiedName) return NONE;
  const parts = split(m.qualifiedName);
  if (!parts) return NONE;
  const owner = tables.symbolIn(m.path, parts[0]);
  if (owner < 0 || tables.node(owner).kind !== 'interface') return NONE;
  const trait = tables.node(owner).label;
  deps.push(parts[1], trait);
  let out: number[] | null = null;
  for (const c of tables.named(parts[1])) {
    if (c === method) continue;
    const n = tables.node(c);
    if (n.kind !== 'method' || n.language !== 'rust' || !n.qualifiedName) continue;
    const type = split(n.qualifiedName)?.[0];
    if (type === undefined || !tables.implementedBy(n.path, type).includes(trait)) continue;
    (out ??= []).push(c);
  }
  return out ?? NONE;
}
