/**
 * Lookups the receiver rules make by name in the symbol tables, never evaluating a value: a Java type
 * by its qualified name or nested path, a Python package's submodule file, and whether a class
 * extends one imported from outside the workspace.
 */
import { classOrAncestor } from './member-lookup.ts';
import { isContainerTypeName, TYPE_NODE_KINDS, type TypeValue } from './receiver-types.ts';
import type { SymbolTables } from './resolve-names.ts';
import type { ReceiverContext } from './resolve-receivers.ts';

/**
 * Whether a class or one of its workspace ancestors extends a class imported from outside the
 * workspace (`class TestClient(httpx.Client)`): a member it lacks here is that base's
 * (`client.cookies`), of an outside type — not a workspace method to guess by name. A collection or
 * mapping base (`extends ArrayList<Node>`) is not counted: its element accessors give workspace values.
 */
export function outsideBase(ctx: ReceiverContext, cls: number): boolean {
  const tables = ctx.tables;
  return classOrAncestor(cls, tables, (c) => {
    const bases = tables.basesOf(c);
    if (!bases.length) return false;
    ctx.deps.push(tables.node(c).label);
    const scope = tables.scopeOfFile(tables.node(c).path);
    return scope !== undefined && bases.some((b) => scope.externalNames.has(b.split('.')[0]) && !isContainerTypeName(b.slice(b.lastIndexOf('.') + 1)));
  });
}

/**
 * A Java type named with its package (`org.jsoup.nodes.Element`, `a.b.Outer.Inner`): the workspace
 * class declared in `org/jsoup/nodes/Element.java` (Java keeps a package in its folder), then nested
 * members; null when no workspace file is there.
 */
export function javaQualifiedType(ctx: ReceiverContext, parts: readonly string[], conf: number): TypeValue | null {
  for (let k = parts.length - 1; k >= 1; k--) {
    const file = `${parts.slice(0, k).join('/')}/${parts[k]}.java`;
    ctx.deps.push(parts[k]);
    const top = ctx.tables.named(parts[k]).find((i) => {
      const n = ctx.tables.node(i);
      return TYPE_NODE_KINDS.has(n.kind) && (n.path === file || n.path.endsWith(`/${file}`)) && (n.qualifiedName ?? n.label) === parts[k];
    });
    if (top === undefined) continue;
    const node = innerType(ctx, top, parts.slice(k + 1));
    return node < 0 ? null : { kind: 'class', node, conf };
  }
  return null;
}

/** The type nested in `outer` by the names `inner` (`Outer.A.B`: A in Outer, then B in A), or −1. */
export function innerType(ctx: ReceiverContext, outer: number, inner: readonly string[]): number {
  let node = outer;
  for (const name of inner) {
    ctx.deps.push(name);
    const n = ctx.tables.node(node);
    node = ctx.tables.memberIn(n.path, n.qualifiedName ?? n.label, name);
    if (node < 0 || !TYPE_NODE_KINDS.has(ctx.tables.node(node).kind)) return -1;
  }
  return node;
}

/** `pkg/name.py` or `pkg/name/__init__.py` beside a package's `__init__.py`, if ingested. */
export function submodule(tables: SymbolTables, files: readonly string[], name: string): string | null {
  for (const f of files) {
    if (!/(^|\/)__init__\.pyi?$/.test(f)) continue;
    const dir = f.slice(0, f.lastIndexOf('/') + 1);
    const here = tables.filesInDir(dir.replace(/\/$/, ''));
    for (const cand of [`${dir}${name}.py`, `${dir}${name}.pyi`]) if (here.includes(cand)) return cand;
    const pkg = tables.filesInDir(`${dir}${name}`);
    const init = pkg.find((p) => /\/__init__\.pyi?$/.test(p));
    if (init) return init;
  }
  return null;
}
