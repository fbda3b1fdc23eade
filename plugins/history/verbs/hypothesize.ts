/** hypothesize: tests a structural claim against the graph (and git for co-change), with a verdict and its evidence. */
import { AgentId, defineVerb, ErrorCodes, M1ndError, Type } from '../../../core/index.ts';
import type { CodeGraph, GraphNode, GraphService } from '../../graph/api.ts';
import { CONTAINS, DEPENDENCY_RELATIONS, RELATION_CODE, RELATIONS, baselineReach, edgeConfidence, simulateRemoval } from '../../graph/api.ts';
import { round3 } from '../call.ts';
import { CLAIM_KINDS, parseClaim, type ClaimKind } from '../claims.ts';
import { historyOf } from '../service.ts';

const CALLS = [RELATION_CODE.calls];
const IMPORTS = [RELATION_CODE.imports];
const DEPENDS = DEPENDENCY_RELATIONS.map((r) => RELATION_CODE[r]);

export const hypothesizeVerb = defineVerb({
  name: 'hypothesize',
  description: 'Test a structural claim ("A never calls B", "A depends on B", "X is isolated", "A always runs before B", "A changes with B") against graph evidence: verdict, confidence, paths.',
  input: Type.Object({
    agent_id: AgentId,
    claim: Type.String({ minLength: 3, maxLength: 500 }),
    max_hops: Type.Integer({ minimum: 1, maximum: 12, default: 5 }),
    include_ghost_edges: Type.Boolean({ default: true, description: 'Depends-on claims may also be supported by git co-change (reported apart)' }),
    path_budget: Type.Integer({ minimum: 10, maximum: 100_000, default: 1000, description: 'Nodes the path search may visit' }),
  }),
  output: Type.Object({
    verdict: Type.String(),
    confidence: Type.Number(),
    object: Type.Optional(Type.String()),
    claim: Type.String(),
    kind: Type.String(),
    subject: Type.String(),
  }),
  tiers: ['full'],
  effect: 'read',
  stages: ['diagnose', 'review'],
  next: 'why',
  guide: [
    `Claim kinds: ${CLAIM_KINDS.join(', ')}. Name nodes by id, path, \`path#Name\` or name; a file or class stands for everything it contains.`,
    '- calls / never_calls: a path of call edges (transitive up to max_hops); depends_on / no_dependency / imports: import, call, reference and inheritance edges.',
    '- Found path → confirmed (negative claims refuted), confidence = the weakest edge\'s resolution confidence. Search exhausted without a path → refuted (negative claims confirmed) at 0.85: static analysis misses dynamic dispatch. Budget spent first → inconclusive.',
    '- isolated: no dependency edge in or out of the node (from or to other files/symbols). always_before: removing A leaves B unreachable from every entry point (A dominates B). co_changes: git support ≥ 2 and confidence (shared / the subject\'s commits) ≥ 0.5, at 0.9 with 5+ shared commits (confirmed) or 5+ subject commits (refuted); a subject with under 2 commits is inconclusive.',
  ].join('\n'),
  handler: async (args, call) => {
    const history = historyOf(call);
    const engine = await history.graph.requireGraph();
    const g = engine.graph;
    engine.pagerank(); // finalizes the adjacency the searches walk
    const parsed = parseClaim(args.claim);
    if (!parsed) {
      throw new M1ndError(ErrorCodes.CALL_INVALID_ARGS, `no claim kind fits "${args.claim}"`, {
        hint: 'phrase it as "A calls B", "A never calls B", "A depends on B", "A does not depend on B", "A imports B", "X is isolated", "A always runs before B" or "A changes with B"',
      });
    }
    const subject = resolve(history.graph, parsed.subject, 'subject');
    const object = parsed.object !== null ? resolve(history.graph, parsed.object, 'object') : null;
    const base = { claim: args.claim, kind: parsed.kind, subject: subject.id, ...(object ? { object: object.id } : {}) };
    const verdict = (holds: boolean | null, confidence: number, evidence: Record<string, unknown>) => ({
      ...base,
      verdict: holds === null ? 'inconclusive' : holds ? 'confirmed' : 'refuted',
      confidence: round3(confidence),
      ...evidence,
    });
    switch (parsed.kind) {
      case 'calls':
      case 'never_calls':
      case 'depends_on':
      case 'no_dependency':
      case 'imports': {
        const rels = parsed.kind === 'imports' ? IMPORTS : parsed.kind.includes('call') ? CALLS : DEPENDS;
        const found = searchPath(g, subject, object!, rels, args.max_hops, args.path_budget);
        const positive = parsed.kind === 'calls' || parsed.kind === 'depends_on' || parsed.kind === 'imports';
        let ghost: unknown;
        if (!found.path && args.include_ghost_edges && parsed.kind !== 'calls' && parsed.kind !== 'never_calls') ghost = await coChange(history, subject.path, object!.path);
        const search = { visited: found.visited, max_hops: args.max_hops, exhausted: found.exhausted, relations: rels.map((r) => RELATIONS[r]) };
        if (found.path) return verdict(positive, found.confidence, { path: found.path, search, ...(ghost ? { co_change: ghost } : {}) });
        if (found.budgetHit) return verdict(null, 0.5, { search, note: `budget of ${args.path_budget} nodes spent before a path was found: raise path_budget` });
        const note = found.exhausted ? 'no path in the static graph at any depth; dynamic dispatch or reflection would not show here' : `no path within ${args.max_hops} hops (longer chains were not followed: raise max_hops)`;
        return verdict(!positive, found.exhausted ? 0.85 : 0.7, { path: null, search, note, ...(ghost ? { co_change: ghost } : {}) });
      }
      case 'isolated': {
        const links = dependencyLinks(g, subject);
        return verdict(links.length === 0, links.length === 0 ? 0.85 : 1, { links: links.slice(0, 10), link_count: links.length });
      }
      case 'always_before': {
        const b = g.indexOf(object!.id);
        if (!baselineReach(g).reach[b] || baselineReach(g).entries[b]) return verdict(null, 0.3, { note: `${object!.id} is an entry point itself or unreachable from every entry point, so no run order can be read from the graph` });
        const sim = simulateRemoval(g, [g.indexOf(subject.id)]);
        const orphaned = sim.orphaned.includes(b);
        return verdict(orphaned, orphaned ? 0.8 : 0.9, { evidence: orphaned ? `removing ${subject.id} leaves ${object!.id} unreachable from every entry point` : `${object!.id} stays reachable from an entry point without ${subject.id}` });
      }
      case 'co_changes': {
        if (subject.path === object!.path) return verdict(null, 0.3, { note: `both are in ${subject.path}: git history is per file, so it cannot tell them apart` });
        const c = await coChange(history, subject.path, object!.path);
        if (!c) return verdict(null, 0.3, { note: 'no git history to test co-change' });
        // Fewer than 2 commits of the subject cannot meet support 2: nothing was tested.
        if (c.commits_of_subject < 2) return verdict(null, 0.3, { co_change: c, note: `${subject.path} has ${c.commits_of_subject} non-sweeping commit(s): too few to test co-change` });
        // The evidence behind a confirmation is the shared commits; behind a refutation, the subject's commits.
        const holds = c.support >= 2 && c.confidence >= 0.5;
        return verdict(holds, (holds ? c.support : c.commits_of_subject) >= 5 ? 0.9 : 0.7, { co_change: c });
      }
    }
    return assertNever(parsed.kind);
  },
});

function assertNever(kind: never): never {
  throw new Error(`unhandled claim kind ${String(kind)}`);
}

function resolve(graph: GraphService, text: string, role: string): GraphNode {
  try {
    return graph.node(text);
  } catch (error) {
    if (error instanceof M1ndError) error.message = `claim ${role} "${text}": ${error.message}`;
    throw error;
  }
}

/** A node and everything it contains (a file or class acts through its members). */
function members(g: CodeGraph, node: GraphNode): number[] {
  const out = [g.indexOf(node.id)];
  for (let k = 0; k < out.length; k++) g.forEachOut(out[k], (t, _w, rel) => rel === CONTAINS && !out.includes(t) && out.push(t));
  return out;
}

/** Breadth-first search from a's members to b's members over `rels`, at most `hops` edges and `budget` visited nodes. */
function searchPath(g: CodeGraph, a: GraphNode, b: GraphNode, rels: number[], hops: number, budget: number) {
  const want = new Uint8Array(32);
  for (const r of rels) want[r] = 1;
  const targets = new Set(members(g, b));
  const prev = new Map<number, { from: number; edge: number } | null>();
  let frontier = members(g, a);
  for (const s of frontier) prev.set(s, null);
  let visited = frontier.length;
  let hit = -1;
  for (let depth = 0; depth < hops && frontier.length && hit < 0; depth++) {
    const next: number[] = [];
    for (const u of frontier) {
      g.forEachOut(u, (t, _w, rel, edge) => {
        if (hit >= 0 || !want[rel] || prev.has(t) || visited >= budget) return;
        prev.set(t, { from: u, edge });
        visited++;
        if (targets.has(t)) hit = t;
        else next.push(t);
      });
      if (hit >= 0 || visited >= budget) break;
    }
    frontier = next;
    if (visited >= budget && hit < 0) return { path: null, visited, exhausted: false, budgetHit: true, confidence: 0 };
  }
  if (hit < 0) return { path: null, visited, exhausted: frontier.length === 0, budgetHit: false, confidence: 0 };
  const hopsOut: string[] = [];
  let confidence = 1;
  for (let v = hit; prev.get(v); v = prev.get(v)!.from) {
    const { from, edge } = prev.get(v)!;
    confidence = Math.min(confidence, edgeConfidence(g, edge));
    hopsOut.unshift(`${g.node(from)!.id} -${RELATIONS[g.edgeRelation[edge]]}-> ${g.node(v)!.id}`);
  }
  return { path: hopsOut, visited, exhausted: false, budgetHit: false, confidence };
}

/** Dependency edges between a node's members and anything outside it. */
function dependencyLinks(g: CodeGraph, node: GraphNode): string[] {
  const inside = new Set(members(g, node));
  const dep = new Set(DEPENDS);
  const out: string[] = [];
  for (const u of inside) {
    g.forEachOut(u, (t, _w, rel) => dep.has(rel) && !inside.has(t) && out.push(`${g.node(u)!.id} -${RELATIONS[rel]}-> ${g.node(t)!.id}`));
    g.forEachIn(u, (s, _w, rel) => dep.has(rel) && !inside.has(s) && out.push(`${g.node(s)!.id} -${RELATIONS[rel]}-> ${g.node(u)!.id}`));
  }
  return out;
}

/** Git co-change of two files, or null without history. */
async function coChange(history: ReturnType<typeof historyOf>, a: string, b: string) {
  try {
    const { index } = await history.current();
    const counts = index.partners(a);
    const p = counts.partners.get(b);
    return { support: p?.support ?? 0, confidence: round3(counts.commits && p ? p.support / counts.commits : 0), commits_of_subject: counts.commits };
  } catch (error) {
    if ((error as M1ndError).code === ErrorCodes.HISTORY_NO_GIT) return null;
    throw error;
  }
}

export type { ClaimKind };
