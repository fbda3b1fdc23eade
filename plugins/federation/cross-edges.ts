/**
 * Cross-repository edges from real evidence. For every pair (A uses B) where A's manifest depends on
 * a package B publishes: a `depends_on` edge between the manifests (the root modules when the graphs
 * hold no manifest node: package.json, pyproject.toml, …); for every import in A of B's
 * package (the name, or a subpath `name/x`, `name.x`, `name::x`), `imports` edges to the B symbols it
 * names; and for every call in A of an imported name (or through the module's alias / last path
 * segment, as Go writes `lib.Parse`; in Rust a dependency's crate name is in scope in every file, so
 * `corelib::parse()` needs no `use`), a `calls` edge from A's calling symbol to B's symbol; a call
 * through a receiver whose static type is a class imported from B (`const c = new Cart(); c.total()`,
 * a parameter `c: Cart`) reaches that class's member. A class of A extending or implementing one of
 * B's (`class Sub(lib.Base)`, `extends Base`) is an `inherits` edge; an attribute read without a call
 * (Python `lib.Model` in an annotation) is a `references` edge, a call only when it reads a
 * `@property` of a typed receiver.
 * Ids are namespaced `<repo>::<node id>`.
 */
import { fileNodeId, moduleNodeId, SliceClock, symbolNodeId, type CodeGraphEngine, type ExtractedBinding, type ExtractedCall, type GraphNode } from '../graph/api.ts';
import { packagesUsed, type RepoManifest } from './manifests.ts';
import { ownership } from './nested-roots.ts';
import { sharedEdges, type RoutesCut } from './shared-edges.ts';

export interface FederatedRepo {
  name: string;
  root: string;
  engine: CodeGraphEngine;
  manifest: RepoManifest;
}

export interface CrossEdge {
  source: string;
  target: string;
  /** `http_route`, `contract`, `config_key`: evidence shared without a dependency (shared-edges.ts). */
  relation: 'depends_on' | 'imports' | 'calls' | 'inherits' | 'references' | 'http_route' | 'contract' | 'config_key';
  /** Where the evidence is: `<repo>::<file>:<line>`. */
  evidence: string;
}

/** The manifest files of each ecosystem, the first one a repository's graph holds standing for it. */
const MANIFEST_OF = { npm: ['package.json'], go: ['go.mod', 'go.work'], python: ['pyproject.toml'], cargo: ['Cargo.toml'] } as const;

/** The node a manifest is in a repository's graph: its file when the graph holds it, else (pyproject.toml, requirements.txt, go.mod) the root module, which stands for the repository. */
function manifestNode(engine: CodeGraphEngine, file: string | undefined): string {
  return file !== undefined && engine.graph.get(fileNodeId(file)) ? fileNodeId(file) : moduleNodeId('.');
}

/** Cross edges computed at most. */
export const MAX_CROSS_EDGES = 20_000;
/** Main-thread milliseconds of work between two yields (the view recomputes these edges in the background). */
const SLICE_MS = 4;

function exportedByLabel(engine: CodeGraphEngine, own: (path: string) => boolean): Map<string, GraphNode[]> {
  const g = engine.graph;
  const out = new Map<string, GraphNode[]>();
  for (let i = 0; i < g.nodeCapacity; i++) {
    const n = g.node(i);
    if (!n || n.kind === 'file' || n.kind === 'module' || n.kind === 'section' || n.exported === false || !own(n.path)) continue;
    // Top-level symbols and class members are what another package can reach.
    const list = out.get(n.label) ?? [];
    list.push(n);
    out.set(n.label, list);
  }
  // A package's name reaches its sources, not its tests (kysely's `Generated` was also test/typings/…/huge-db.test-d.ts's): a test file's symbol only when no other holds the name.
  const inTest = new Map<string, boolean>();
  const isTest = (path: string) => inTest.get(path) ?? (inTest.set(path, g.get(fileNodeId(path))?.isTest === true), inTest.get(path)!);
  for (const [label, list] of out) {
    const sources = list.filter((n) => !isTest(n.path));
    if (sources.length && sources.length < list.length) out.set(label, sources);
  }
  return out;
}

/** B's class members by class name and member name (qualified `Cart.total` → Cart → total). */
function membersByClass(engine: CodeGraphEngine, own: (path: string) => boolean): Map<string, Map<string, GraphNode[]>> {
  const out = new Map<string, Map<string, GraphNode[]>>();
  const g = engine.graph;
  for (let i = 0; i < g.nodeCapacity; i++) {
    const n = g.node(i);
    if (!n || (n.kind !== 'method' && n.kind !== 'function') || !n.qualifiedName || !own(n.path)) continue;
    const owners = n.qualifiedName.replace(/~\d+$/, '').split('.');
    if (owners.length < 2) continue;
    const cls = owners[owners.length - 2];
    const byName = out.get(cls) ?? new Map<string, GraphNode[]>();
    const list = byName.get(n.label);
    if (list) list.push(n);
    else byName.set(n.label, [n]);
    out.set(cls, byName);
  }
  return out;
}

/** A binding typed by a class imported from the other repository: its scope, name, line span and class. */
interface TypedName {
  scope: string | null;
  name: string;
  line: number;
  endLine?: number;
  cls: string;
}

/**
 * The file's names whose static type is a class it imports from the other repository: declared
 * (`c: Cart`, `cart: libx.Cart | null`) or constructed (`new Cart()`, Python `Cart()`).
 */
function receiverTypes(bindings: readonly ExtractedBinding[], named: ReadonlyMap<string, GraphNode[]>, modules: ReadonlySet<string>): TypedName[] {
  const out: TypedName[] = [];
  const imported = (dotted: string | undefined): string | null => {
    if (!dotted) return null;
    const parts = dotted.split('.');
    const cls = parts[parts.length - 1];
    if (parts.length > 2 || (parts.length === 2 && !modules.has(parts[0]))) return null;
    return parts.length === 2 || named.get(cls)?.some((n) => n.kind === 'class' || n.kind === 'interface') ? cls : null;
  };
  for (const b of bindings) {
    if (b.source === 'range') continue;
    const declared = b.type ? /^(?:readonly\s+)?([\w$]+(?:\.[\w$]+)?)\s*(?:<[^>]*>)?\s*(?:\|\s*(?:null|undefined|None)\s*)?$/.exec(b.type)?.[1] : undefined;
    const built = b.value ? /^(?:new\s+|await\s+)?([\w$]+(?:\.[\w$]+)?)\s*(?:<[^>]*>)?\s*\(/.exec(b.value) : null;
    const cls = imported(declared) ?? (built && (b.value!.startsWith('new ') || /^[A-Z]/.test(built[1].split('.').pop()!)) ? imported(built[1]) : null);
    if (cls) out.push({ scope: b.scope, name: b.name, line: b.line, endLine: b.endLine, cls });
  }
  return out;
}

/** The other repository's members a call through a typed receiver reaches (`c.total()` with `c: Cart`): the innermost binding in scope wins. */
function membersCalled(typed: readonly TypedName[], c: ExtractedCall, member: (cls: string, name: string) => GraphNode[]): GraphNode[] {
  let best: TypedName | undefined;
  for (const t of typed) {
    if (t.name !== c.receiver || t.line > c.line || (t.endLine !== undefined && c.line > t.endLine)) continue;
    if (t.scope !== c.caller && t.scope !== null) continue;
    if (!best || (best.scope === null && t.scope !== null) || t.line > best.line) best = t;
  }
  return best ? member(best.cls, c.callee) : [];
}

/**
 * A class's member by name in B, declared by the class or, else, by the nearest ancestor B's graph
 * ties it to (`db: Kysely` calling `db.insertInto`, which Kysely inherits from QueryCreator).
 */
function memberLookup(engine: CodeGraphEngine, members: ReadonlyMap<string, ReadonlyMap<string, GraphNode[]>>, exported: ReadonlyMap<string, GraphNode[]>): (cls: string, name: string) => GraphNode[] {
  const g = engine.graph;
  const cache = new Map<string, GraphNode[]>();
  const find = (cls: string, name: string, seen: Set<string>): GraphNode[] => {
    const own = members.get(cls)?.get(name);
    if (own?.length || seen.has(cls) || seen.size >= 16) return own ?? [];
    seen.add(cls);
    for (const n of exported.get(cls) ?? []) {
      if (!isType(n)) continue;
      for (const e of [...g.outgoing(n.id, 'inherits'), ...g.outgoing(n.id, 'implements')]) {
        const parent = g.get(e.target);
        const hit = parent ? find(parent.label, name, seen) : [];
        if (hit.length) return hit;
      }
    }
    return [];
  };
  return (cls, name) => {
    const key = `${cls}.${name}`;
    let hit = cache.get(key);
    if (!hit) cache.set(key, (hit = find(cls, name, new Set())));
    return hit;
  };
}

/** Whether a node of `engine` is a Python `@property` (reading it calls it), from its file's extraction; cached per file. */
function propertyCheck(engine: CodeGraphEngine): (n: GraphNode) => boolean {
  const byFile = new Map<string, Set<string>>();
  return (n) => {
    let props = byFile.get(n.path);
    if (!props) byFile.set(n.path, (props = new Set((engine.fileExtraction(n.path)?.symbols ?? []).filter((s) => s.property).map((s) => s.qualifiedName))));
    return n.qualifiedName !== undefined && props.has(n.qualifiedName);
  };
}

/** A qualifier naming the other repository's module: `lib` (`lib.Parse`), a path through its modules (`corelib::text::parse`, Python `httpx._client.X`). */
const throughModule = (qualifier: string, modules: ReadonlySet<string>) => modules.has(qualifier) || modules.has(qualifier.split('::')[0]) || modules.has(qualifier.split('.')[0]);

/**
 * The symbols an import of a subpath (`from lib.server import Server`, `lib/server`, Go `lib/server`)
 * names: those of the file or folder that path leads to, when one holds the name; else every one (a re-export).
 */
function fromModule(targets: GraphNode[], within: string): GraphNode[] {
  if (!within || targets.length < 2) return targets;
  const leads = (path: string) => path === within || path.endsWith(`/${within}`);
  const hits = targets.filter((t) => {
    const file = t.path.replace(/\.[^./]+$/, '');
    return leads(file) || leads(file.replace(/\/(?:__init__|index|mod)$/, '')) || leads(t.path.slice(0, Math.max(0, t.path.lastIndexOf('/'))));
  });
  return hits.length ? hits : targets;
}

const isType = (n: GraphNode) => n.kind === 'class' || n.kind === 'interface' || n.kind === 'type';

/** The cross edges between the repositories, in a stable order (the routes and requests files hold past their caps added to `cut`). */
export async function crossEdges(repos: readonly FederatedRepo[], cut?: RoutesCut): Promise<CrossEdge[]> {
  const edges: CrossEdge[] = [];
  const seen = new Set<string>();
  const owns = ownership(repos);
  const add = (e: CrossEdge) => {
    const k = `${e.source}|${e.relation}|${e.target}`;
    if (seen.has(k) || edges.length >= MAX_CROSS_EDGES) return;
    seen.add(k);
    edges.push(e);
  };
  for (const a of repos) {
    for (const b of repos) {
      if (a === b) continue;
      const uses = packagesUsed(a.manifest, b.manifest, b.root);
      if (uses.length === 0) continue;
      for (const { dependency: dep, pkg } of uses) {
        const bManifest = MANIFEST_OF[pkg.ecosystem].find((f) => b.engine.graph.get(fileNodeId(f)));
        add({ source: `${a.name}::${manifestNode(a.engine, dep.file)}`, target: `${b.name}::${manifestNode(b.engine, bManifest)}`, relation: 'depends_on', evidence: `${a.name}::${dep.file}:${dep.line}` });
      }
      // The roots A's code imports B by; a crate's also stand in every Rust file without a `use`.
      const used = [...new Set(uses.flatMap((u) => u.imports))];
      const crates = [...new Set(uses.filter((u) => u.pkg.ecosystem === 'cargo').flatMap((u) => u.imports))];
      const exported = exportedByLabel(b.engine, (path) => owns(b, path));
      const members = membersByClass(b.engine, (path) => owns(b, path));
      const isProperty = propertyCheck(b.engine);
      const member = memberLookup(b.engine, members, exported);
      await new Promise((r) => setImmediate(r));
      const g = a.engine.graph;
      const clock = new SliceClock(SLICE_MS);
      for (let i = 0; i < g.nodeCapacity; i++) {
        const file = g.node(i);
        if (!file || file.kind !== 'file' || !owns(a, file.path)) continue;
        if (clock.spent()) await clock.yield();
        const x = a.engine.fileExtraction(file.path);
        if (!x) continue;
        const named = new Map<string, GraphNode[]>();
        const modules = new Set<string>(file.path.endsWith('.rs') ? crates : []);
        for (const imp of x.imports) {
          const pkg = used.find((n) => imp.specifier === n || [`${n}/`, `${n}.`, `${n}::`].some((p) => imp.specifier.startsWith(p)));
          if (!pkg) continue;
          // The name the import binds the module to: Python binds `a` for `import a.b`, and nothing for `from a.b import X`;
          // JS/TS a default import its local name (unknown: taken as the last segment), and `import { X } from '@acme/db'` no `db`.
          const last = imp.specifier.split(/[/.]|::/).pop();
          const js = file.language === 'typescript' || file.language === 'tsx' || file.language === 'javascript';
          const bound = imp.alias ?? (file.language === 'python' ? (imp.names.length === 0 ? imp.specifier.split('.')[0] : undefined) : js ? (imp.names.includes('default') ? last : undefined) : last);
          if (bound) modules.add(bound);
          const within = imp.specifier.slice(pkg.length).split(/[/.]|::/).filter(Boolean).join('/');
          for (const name of imp.names) {
            const targets = fromModule(exported.get(name) ?? [], within);
            if (targets.length) named.set(name, targets);
            for (const t of targets) add({ source: `${a.name}::${file.id}`, target: `${b.name}::${t.id}`, relation: 'imports', evidence: `${a.name}::${file.path}:${imp.line}` });
          }
        }
        if (named.size === 0 && modules.size === 0) continue;
        // A base named through the module (`lib.Base`) or imported by name (`Base`): the class inherits from B's type.
        const inherited = new Set<string>();
        for (const inh of x.inherits) {
          const viaModule = inh.qualifier !== undefined && throughModule(inh.qualifier, modules);
          const targets = (viaModule ? (exported.get(inh.parent) ?? []) : inh.qualifier === undefined ? (named.get(inh.parent) ?? []) : []).filter(isType);
          const child = x.symbols.find((s) => s.qualifiedName === inh.child);
          if (!child || targets.length === 0) continue;
          const source = `${a.name}::${symbolNodeId(child.kind, file.path, child.qualifiedName)}`;
          for (const t of targets) {
            inherited.add(`${source}|${b.name}::${t.id}`);
            add({ source, target: `${b.name}::${t.id}`, relation: 'inherits', evidence: `${a.name}::${file.path}:${child.startLine}` });
          }
        }
        const typed = receiverTypes(x.bindings ?? [], named, modules);
        for (const c of x.calls) {
          const viaModule = c.receiver !== undefined && throughModule(c.receiver, modules);
          let targets = viaModule ? (exported.get(c.callee) ?? []) : c.receiver === undefined ? (named.get(c.callee) ?? []) : membersCalled(typed, c, member);
          // An attribute read without a call: through the module a reference (an annotation, a base); on a typed receiver a call of a property only.
          if (c.access && !viaModule) targets = targets.filter(isProperty);
          if (targets.length === 0) continue;
          const caller = a.engine.symbolAt(file.path, c.line) ?? file;
          const relation = c.access && viaModule ? 'references' : 'calls';
          for (const t of targets) {
            const source = `${a.name}::${caller.id}`;
            if (relation === 'references' && inherited.has(`${source}|${b.name}::${t.id}`)) continue;
            add({ source, target: `${b.name}::${t.id}`, relation, evidence: `${a.name}::${file.path}:${c.line}` });
          }
        }
      }
    }
  }
  await sharedEdges(repos, add, owns, cut);
  return edges;
}
