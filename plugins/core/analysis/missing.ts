/**
 * missing: structural holes around a query — connections the neighbourhood says should exist but
 * do not. Siblings (same kind, same container) of the activated nodes are compared: a dependency
 * most siblings have and one lacks is a `missing_edge`; tests most siblings have and one lacks is
 * `untested`; a node that links several activated nodes without matching the query is a `bridge`.
 */
import { AgentId, defineVerb, Type } from '../../../core/index.ts';
import { RELATION_CODE, RELATIONS, type CodeGraph } from '../../graph/api.ts';
import { containerOf, CONTAINS, fileIndexOf, isConstructorOf, KIND_CODE, kindCodes } from '../../graph/api.ts';
import { DEPENDENCY_RELATIONS, RELATION_PHRASE } from '../../graph/api.ts';
import { nodeRef } from '../shared.ts';
import { recordVisit } from '../session/visits.ts';
import { openGraph, round3 } from './graph-call.ts';
import { activationReady, activateQuery, DIMENSIONS } from './query-activation.ts';
import { bridgingNodes } from './activation-results.ts';

const MAX_GROUPS = 40;
const MAX_SIBLINGS = 300;
const MAJORITY = 0.6;

interface Hole {
  kind: 'missing_edge' | 'untested' | 'bridge';
  node: number;
  relation?: string;
  target?: number;
  evidence: string;
  score: number;
}

export const missingVerb = defineVerb({
  name: 'missing',
  description: 'Structural holes around a query: connections siblings have that one lacks (calls, imports, tests), and unmatched bridges.',
  input: Type.Object({
    agent_id: AgentId,
    query: Type.String({ minLength: 1 }),
    min_sibling_activation: Type.Number({ minimum: 0, maximum: 1, default: 0.3, description: 'Activation (0-1 of the best) that makes a node a reference point' }),
    top_k: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  }),
  output: Type.Object({
    elapsed_ms: Type.Number(),
    note: Type.Optional(Type.String()),
    query: Type.String(),
    holes: Type.Array(Type.Object({})),
    reference_points: Type.Number(),
    groups_examined: Type.Number(),
  }),
  effect: 'read',
  stages: ['review', 'diagnose'],
  next: 'view',
  guide: [
    'Activation runs for the query; nodes scoring at least min_sibling_activation × the best score are the reference points. For each, its siblings (same kind, same file / class / directory) are compared:',
    `- \`missing_edge\`: a dependency (call, import, reference, inheritance) that at least ${MAJORITY * 100}% of the siblings (and at least two) have and this sibling lacks — e.g. every handler calls \`validate\` except one;`,
    `- \`untested\`: at least ${MAJORITY * 100}% of the siblings are tested (a tests edge, or a call from a test file; a constructor is tested when its class is constructed by a test) and this one is not;`,
    '- `bridge`: a node outside the results connected to several of them — probably part of the picture though it does not match the words.',
    'Holes are ranked by how unanimous the siblings are times the activation of the group.',
  ].join('\n'),
  handler: async (args, call) => {
    const t0 = performance.now();
    const { graph, engine, g } = await openGraph(call);
    await activationReady(engine);
    const outcome = await activateQuery(graph, engine, { query: args.query, agentId: call.agentId, dimensions: DIMENSIONS, topK: 50, xlr: true, ghostEdges: true });
    const top = outcome.ranked[0]?.score ?? 0;
    const activated = outcome.ranked.filter((r) => top > 0 && r.score / top >= args.min_sibling_activation);
    const act = (i: number) => (top > 0 ? Math.min(1, outcome.scoreOf(i) / top) : 0);
    const kinds = kindCodes(g);
    const holes: Hole[] = [];
    const groups = new Map<string, { parent: number; kind: number; best: number }>();
    for (const r of activated) {
      if (kinds[r.index] === KIND_CODE.module) continue;
      const parent = containerOf(g, r.index);
      if (parent < 0) continue;
      const key = `${parent}:${kinds[r.index]}`;
      const cur = groups.get(key);
      if (!cur) groups.set(key, { parent, kind: kinds[r.index], best: r.score / top });
      else cur.best = Math.max(cur.best, r.score / top);
    }
    const examined = [...groups.values()].sort((a, b) => b.best - a.best).slice(0, MAX_GROUPS);
    for (const grp of examined) holes.push(...siblingHoles(g, grp.parent, grp.kind, grp.best, act));
    const bridges = bridgingNodes(g, activated, 5);
    for (const b of bridges) {
      const names = b.neighbours.slice(0, 4).map((n) => g.node(n)!.label);
      holes.push({ kind: 'bridge', node: b.index, evidence: `connects ${b.neighbours.length} activated nodes (${names.join(', ')}) without matching the query`, score: Math.min(1, b.support / b.neighbours.length) * 0.8 });
    }
    const seen = new Set<string>();
    const ranked = holes
      .sort((a, b) => b.score - a.score || a.node - b.node)
      .filter((h) => {
        const key = `${h.kind}:${h.node}:${h.relation ?? ''}:${h.target ?? ''}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .slice(0, args.top_k);
    const elapsedMs = performance.now() - t0;
    recordVisit(call, engine.root, { nodes: ranked.map((h) => g.node(h.node)!), query: { subject: args.query, results: ranked.length, elapsedMs } });
    return {
      query: args.query,
      holes: ranked.map((h) => ({
        kind: h.kind,
        node: nodeRef(g.node(h.node)!),
        ...(h.relation ? { expected: { relation: h.relation, target: h.target !== undefined ? g.node(h.target)!.id : undefined } } : {}),
        evidence: h.evidence,
        score: round3(h.score),
      })),
      reference_points: activated.length,
      groups_examined: examined.length,
      ...(ranked.length === 0 ? { note: 'no sibling disagrees and nothing bridges the results: no structural hole found' } : {}),
      elapsed_ms: round3(elapsedMs),
    };
  },
});

const DEP = new Set(DEPENDENCY_RELATIONS.map((r) => RELATION_CODE[r]));

/** Holes among the children of `parent` of kind code `kind` (see the module comment). */
function siblingHoles(g: CodeGraph, parent: number, kind: number, groupActivation: number, act: (i: number) => number): Hole[] {
  const kinds = kindCodes(g);
  const fileOf = fileIndexOf(g);
  const siblings: number[] = [];
  g.forEachOut(parent, (t, _w, rel) => {
    if (rel === CONTAINS && kinds[t] === kind && siblings.length < MAX_SIBLINGS) siblings.push(t);
  });
  if (siblings.length < 3) return [];
  const need = Math.max(2, Math.ceil(MAJORITY * siblings.length));
  const parentNode = g.node(parent)!;
  const kindName = g.node(siblings[0])!.kind;
  const plural = kindName.endsWith('s') ? `${kindName}es` : `${kindName}s`;
  const where = parentNode.kind === 'module' ? `${parentNode.path}/` : parentNode.label;
  const out: Hole[] = [];
  // Dependencies most siblings share.
  const having = new Map<string, Set<number>>();
  for (const s of siblings) {
    g.forEachOut(s, (t, _w, rel) => {
      if (!DEP.has(rel) || t === s) return;
      const key = `${rel}:${t}`;
      let set = having.get(key);
      if (!set) having.set(key, (set = new Set()));
      set.add(s);
    });
  }
  for (const [key, set] of having) {
    if (set.size < need || set.size === siblings.length) continue;
    const [rel, target] = key.split(':').map(Number);
    const relation = RELATIONS[rel];
    const targetNode = g.node(target)!;
    for (const s of siblings) {
      if (set.has(s) || s === target) continue;
      out.push({
        kind: 'missing_edge',
        node: s,
        relation,
        target,
        evidence: `\`${targetNode.label}\` ${RELATION_PHRASE[relation][1]} ${set.size} of ${siblings.length} sibling ${plural} in ${where}, not by this one`,
        score: (set.size / siblings.length) * Math.max(groupActivation, act(s)),
      });
    }
  }
  // Tests most siblings have. Calling a class runs its constructor: a test that constructs it tests that too.
  const testedNode = (v: number): boolean => {
    let yes = false;
    g.forEachIn(v, (src, _w, rel) => {
      if (rel === RELATION_CODE.tests || (rel === RELATION_CODE.calls && fileOf[src] >= 0 && g.node(fileOf[src])!.isTest)) yes = true;
    });
    return yes;
  };
  const isConstructor = (v: number): boolean => parentNode.kind === 'class' && isConstructorOf(g.node(v)!, parentNode);
  const tested = new Set<number>();
  let classTested: boolean | undefined;
  for (const s of siblings) {
    if (testedNode(s) || (isConstructor(s) && (classTested ??= testedNode(parent)))) tested.add(s);
  }
  if (tested.size >= need && tested.size < siblings.length) {
    for (const s of siblings) {
      if (tested.has(s) || (fileOf[s] >= 0 && g.node(fileOf[s])?.isTest)) continue;
      out.push({
        kind: 'untested',
        node: s,
        relation: 'tests',
        evidence: `${tested.size} of ${siblings.length} sibling ${plural} in ${where} are tested; this one is not`,
        score: (tested.size / siblings.length) * Math.max(groupActivation, act(s)),
      });
    }
  }
  return out;
}
