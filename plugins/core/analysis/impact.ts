/** impact: what changing one node touches — direct dependents first, then transitive ones by depth, import fan-out counted. */
import { AgentId, defineVerb, packTextsToTokenBudget, StringEnum, Type } from '../../../core/index.ts';
import { NodeRefSchema, RELATIONS, type CodeGraph, type GraphNode } from '../../graph/api.ts';
import { confidenceFilter } from '../../graph/api.ts';
import { groupDependents, type DirectDependent, type TransitiveDependent } from '../../graph/api.ts';
import { arrow, pathTokens } from '../../graph/api.ts';
import { fileIndexOf, slicePace, warmFileIndex } from '../../graph/api.ts';
import { pathTo, propagate, type Direction, type Propagation } from '../../graph/api.ts';
import { IMPACT_PROFILE } from '../../graph/api.ts';
import { dirOf } from '../../graph/api.ts';
import { recordVisit } from '../session/visits.ts';
import { nodeRef } from '../shared.ts';
import { EdgeSites } from './edge-sites.ts';
import { openGraph, resolveNodeArg, round3 } from './graph-call.ts';

const WALK: Record<'forward' | 'reverse' | 'both', Direction> = { forward: 'out', reverse: 'in', both: 'both' };

/** Per-hop decay and cut-off of the impact signal. */
export const IMPACT_DECAY = 0.85;
export const IMPACT_THRESHOLD = 0.01;
/** Default token budget of the listed entries in summary mode (keeps a whole answer under ~2K tokens). */
export const IMPACT_ENTRY_BUDGET = 1400;
/** Structure nodes (enclosing nodes or parts) listed in summary. */
const STRUCTURE_LISTED = 5;
/** Directories named in the import fan-out summary (the rest are counted). */
const FANOUT_DIRECTORIES = 8;

export const impactVerb = defineVerb({
  name: 'impact',
  description: 'Blast radius of changing a node: direct dependents first (relation, confidence, line), then transitive ones by depth; import fan-out counted by directory.',
  input: Type.Object({
    agent_id: AgentId,
    node_id: Type.String({ minLength: 1, description: 'Node id, path, path:line, path#Name or name' }),
    direction: StringEnum(['forward', 'reverse', 'both'] as const, { default: 'reverse', description: 'reverse: what depends on the node (blast radius)' }),
    include_causal_chains: Type.Boolean({ default: true }),
    max_depth: Type.Integer({ minimum: 1, maximum: 10, default: 5 }),
    min_confidence: Type.Number({ minimum: 0, maximum: 1, default: 0, description: 'Skip edges resolved below this confidence' }),
    detail: StringEnum(['summary', 'full'] as const, { default: 'summary', description: 'full: list every entry and the import fan-out' }),
    top_k: Type.Integer({ minimum: 1, maximum: 500, default: 20, description: 'Entries listed in summary (direct first)' }),
    token_budget: Type.Integer({ minimum: 100, maximum: 20_000, default: IMPACT_ENTRY_BUDGET, description: 'Max BPE tokens of listed entries in summary' }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    truncated: Type.Optional(Type.Boolean()),
    listed_tokens: Type.Optional(Type.Number()),
    omitted: Type.Optional(Type.Object({ how: Type.String(), structure: Type.Number(), direct: Type.Number(), transitive: Type.Number(), import_fanout: Type.Number() })),
    structure: Type.Optional(Type.Array(Type.String())),
    affected: Type.Number(),
    other_files: Type.Number(),
    direct: Type.Array(Type.Object({})),
    transitive: Type.Object({ count: Type.Number(), by_depth: Type.Object({}), entries: Type.Array(Type.Unknown()) }),
    import_fanout: Type.Object({ entries: Type.Optional(Type.Array(Type.Unknown())), other_directories: Type.Optional(Type.Number()), count: Type.Number(), files: Type.Number(), by_depth: Type.Object({}), by_directory: Type.Object({}) }),
    min_confidence: Type.Optional(Type.Number()),
    direction: Type.String(),
    resolved_from: Type.Optional(Type.Object({ text: Type.String(), via: Type.String(), alternatives: Type.Optional(Type.Array(Type.Unknown())) })),
    node: NodeRefSchema,
  }),
  tiers: ['essential'],
  effect: 'read',
  stages: ['plan', 'review', 'diagnose'],
  next: 'why',
  guide: [
    'Edges point from the dependent to what it needs (`a -calls-> b`). `reverse` walks them backwards (callers, importers, subclasses, tests, docs: the usual blast radius); `forward` walks what the node relies on; `both` does both.',
    '`direct`: every node one edge away (containment aside), strongest first, with its relation(s), the resolution `confidence` of the edge (weight = default weight × confidence) and the source `line` of the call/reference/import (none for a co-change: history, not a line). `min_confidence` drops weaker edges from the whole walk.',
    `\`transitive\`: nodes further away by best path (signal × edge weight × ${IMPACT_DECAY} per hop, stops below ${IMPACT_THRESHOLD} or at max_depth), counted by depth, listed by depth then strength with \`weakest\` (lowest confidence on the path) and the chain. Paths through a file → file import are \`import_fanout\`, counted by directory. \`structure\`: the node's enclosing file/class (reverse) or parts (forward).`,
    'summary lists up to top_k entries within token_budget (`listed_tokens` when their size had to be counted: entries whose bytes fit the budget are not tokenised) and says in `omitted` what it left out; `detail: "full"` lists everything, fan-out included.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    // Impact ranks nothing: no PageRank on its path (its first call on a big graph would compute it).
    const { engine, g } = await openGraph(call, { rank: false });
    // The node → file index (a whole-graph pass the first time) made between paces; source lines
    // read a row at a time; the tokenizer's first load in a turn of its own.
    const pace = slicePace(8);
    await warmFileIndex(g, pace);
    const origin = await resolveNodeArg(engine, args.node_id, 'node_id');
    const direction = WALK[args.direction];
    const p = propagate(g, [{ index: origin.index, signal: 1 }], {
      direction,
      relations: IMPACT_PROFILE,
      decay: IMPACT_DECAY,
      threshold: IMPACT_THRESHOLD,
      maxDepth: args.max_depth,
      maxVisits: 20_000,
      edgeFactor: confidenceFilter(g, args.min_confidence),
    });
    const groups = groupDependents(g, origin.index, p, { direction, relations: IMPACT_PROFILE, minConfidence: args.min_confidence });
    const full = args.detail === 'full';
    const sites = new EdgeSites(engine);
    // Source lines cost a stored-extraction read per file: only for the entries that can be listed.
    const directRows: ReturnType<typeof directRow>[] = [];
    for (const d of full ? groups.direct : groups.direct.slice(0, args.top_k)) {
      await pace();
      directRows.push(directRow(g, origin.node, d, sites, args.direction === 'both'));
    }
    const chains = args.include_causal_chains;
    // In summary, containers/parts of dependents are counted, not listed: their dependents carry the news.
    // Listed by depth (nearest first), strongest first within a depth (propagation order; the sort is stable).
    const byDepth = (a: TransitiveDependent, b: TransitiveDependent) => p.depth[a.position] - p.depth[b.position];
    const listable = (full ? [...groups.transitive] : groups.transitive.filter((t) => !t.enclosing)).sort(byDepth);
    const transitiveRows = listable.map((t) => transitiveRow(g, p, t, chains));
    const fanoutRows = full ? [...groups.importFanout].sort(byDepth).map((t) => transitiveRow(g, p, t, chains)) : [];

    let directShown = directRows;
    let transitiveShown = transitiveRows;
    let budget: { used_tokens?: number } | undefined;
    if (!full) {
      const ranked = [...directRows.map((r) => ({ direct: true, r })), ...transitiveRows.map((r) => ({ direct: false, r }))].slice(0, args.top_k);
      // Tokenised only when the entries' bytes exceed the budget (a token is at least one byte); the dispatcher loaded the tokenizer before the handler.
      const texts = new Map(ranked.map((x) => [x, JSON.stringify(x.r)]));
      const packed = packTextsToTokenBudget(ranked, args.token_budget, (x) => texts.get(x)!);
      directShown = packed.kept.filter((x) => x.direct).map((x) => x.r as (typeof directRows)[number]);
      transitiveShown = packed.kept.filter((x) => !x.direct).map((x) => x.r as (typeof transitiveRows)[number]);
      budget = packed.report;
    }
    const fileOf = fileIndexOf(g);
    const files = new Set<number>();
    // The import fan-out is counted on its own: a file importing the node's file may not use the node.
    const touched = [...groups.direct.map((d) => d.index), ...groups.transitive.map((t) => p.order[t.position])];
    for (const v of touched) if (fileOf[v] >= 0 && fileOf[v] !== fileOf[origin.index]) files.add(fileOf[v]);
    // Forward from a file, its parts can be hundreds of symbols: a few say what it holds.
    const structureShown = full ? groups.structure : groups.structure.slice(0, STRUCTURE_LISTED);
    const omitted = {
      structure: groups.structure.length - structureShown.length,
      direct: groups.direct.length - directShown.length,
      transitive: groups.transitive.length - transitiveShown.length,
      import_fanout: groups.importFanout.length - fanoutRows.length,
    };
    const anyOmitted = omitted.structure + omitted.direct + omitted.transitive + omitted.import_fanout > 0;
    const elapsedMs = performance.now() - t0;
    const listed = [origin.node, ...[...directShown, ...transitiveShown, ...fanoutRows].map((r) => g.get(r.id)!)];
    recordVisit(call, engine.root, { nodes: listed, query: { subject: origin.node.id, results: touched.length, elapsedMs } });
    return {
      node: nodeRef(origin.node),
      ...(origin.resolvedFrom ? { resolved_from: origin.resolvedFrom } : {}),
      direction: args.direction,
      ...(args.min_confidence > 0 ? { min_confidence: args.min_confidence } : {}),
      affected: touched.length,
      other_files: files.size,
      direct: directShown,
      transitive: { count: groups.transitive.length, by_depth: countByDepth(p, groups.transitive), entries: transitiveShown },
      import_fanout: fanoutSummary(g, p, groups.importFanout, fanoutRows.length ? fanoutRows : undefined),
      ...(structureShown.length ? { structure: structureShown.map((v) => g.node(v)!.id) } : {}),
      ...(anyOmitted ? { omitted: { ...omitted, how: full ? 'raise max_depth or lower min_confidence to reach more' : 'detail: "full" lists every entry and the import fan-out' } } : {}),
      ...(budget?.used_tokens !== undefined ? { listed_tokens: budget.used_tokens } : {}),
      ...(p.truncated ? { truncated: true } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});

/** A direct dependent as listed: id, relation(s), confidence and the source line of the edge (none for a co-change alone). */
function directRow(g: CodeGraph, origin: GraphNode, d: DirectDependent, sites: EdgeSites, both: boolean) {
  const n = g.node(d.index)!;
  const relation = RELATIONS[d.relations[0]];
  // The line is in the file of the edge's source: the dependent walking in reverse, the origin forward.
  const line = d.backward ? sites.line(n, origin, relation) : sites.line(origin, n, relation);
  return {
    id: n.id,
    relation: d.relations.map((r) => RELATIONS[r]).join('+'),
    confidence: d.confidence,
    ...(line !== null ? { line } : {}),
    ...(both ? { way: d.backward ? 'depends_on_it' : 'it_depends_on' } : {}),
  };
}

/** A transitive dependent as listed: depth, signal, weakest link and (optionally) the chain. */
function transitiveRow(g: CodeGraph, p: Propagation, t: TransitiveDependent, chains: boolean) {
  const v = p.order[t.position];
  const hops = pathTo(p, v);
  return {
    id: g.node(v)!.id,
    depth: p.depth[t.position],
    signal: round3(p.signal[t.position]),
    weakest: round3(t.weakest),
    ...(t.weakest < 1 && t.weakestEdge >= 0 ? { weakest_edge: weakestEdge(g, hops, t.weakestEdge) } : {}),
    ...(chains ? { chain: pathTokens(g, hops) } : {}),
  };
}

/** The weakest hop as `a -calls-> b` (labels). */
function weakestEdge(g: CodeGraph, hops: ReturnType<typeof pathTo>, edge: number): string {
  const hop = hops.find((h) => h.edge === edge);
  if (!hop) return RELATIONS[g.edgeRelation[edge]];
  return `${g.node(hop.from)!.label} ${arrow(g, hop)} ${g.node(hop.to)!.label}`;
}

function countByDepth(p: Propagation, list: readonly TransitiveDependent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of list) out[p.depth[t.position]] = (out[p.depth[t.position]] ?? 0) + 1;
  return out;
}

/** The import fan-out as counts (by depth and by directory, largest first), with the entries when listed. */
function fanoutSummary(g: CodeGraph, p: Propagation, list: readonly TransitiveDependent[], entries?: unknown[]) {
  const byDir = new Map<string, number>();
  let files = 0;
  for (const t of list) {
    const n = g.node(p.order[t.position])!;
    if (n.kind === 'file') files++;
    const dir = dirOf(n.path) || '.';
    byDir.set(dir, (byDir.get(dir) ?? 0) + 1);
  }
  const dirs = [...byDir].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return {
    count: list.length,
    files,
    by_depth: countByDepth(p, list),
    by_directory: Object.fromEntries(dirs.slice(0, FANOUT_DIRECTORIES)),
    ...(dirs.length > FANOUT_DIRECTORIES ? { other_directories: dirs.length - FANOUT_DIRECTORIES } : {}),
    ...(entries ? { entries } : {}),
  };
}
