/** xray_paint: files classified into proof states against the layer manifest (bedrock, unproven, overgrowth, erosion candidate); commit stores them as tags. */
import { AgentId, defineVerb, StringEnum, Type } from '../../../core/index.ts';
import { fileIndexOf } from '../../graph/api.ts';
import { structureCall } from '../call.ts';
import { Deadline, timeBudgetParam } from '../deadline.ts';
import { reachedByTest } from '../graph-rules.ts';
import { ScopeParam, scopeFilter } from '../scope.ts';
import { typeOnlyImportsOf } from '../unit-graph.ts';
import { conformance } from '../xray/conformance.ts';
import { allTags, appendLedger, setTags, tagsVersion } from '../xray/ledger.ts';
import { loadManifest, type ManifestInput } from '../xray/manifest.ts';
import { ManifestParams } from './xray_orient.ts';

const STATES = ['erosion_candidate', 'overgrowth', 'unproven', 'bedrock'] as const;
type State = (typeof STATES)[number];
const TAG = (s: State) => `xray:${s}`;

export function xrayPaintVerb(configured: ManifestInput | undefined) {
  return defineVerb({
    name: 'xray_paint',
    description: 'Classify files against the layer manifest: bedrock (conforms, tested), unproven (conforms, untested), overgrowth (in no layer), erosion candidate (breaks it). commit stores xray:<state> tags.',
    input: Type.Object({
      agent_id: AgentId,
      scope: ScopeParam,
      ...ManifestParams,
      mode: Type.Optional(StringEnum(['dry_run', 'commit'], { default: 'dry_run', description: 'Classify only, or also store the tags' })),
      top_k: Type.Optional(Type.Integer({ minimum: 0, maximum: 200, default: 10, description: 'Files listed per state' })),
      time_budget_ms: timeBudgetParam(10_000),
    }),
    output: Type.Object({
      mode: Type.String(),
      manifest: Type.String(),
      counts: Type.Record(Type.String(), Type.Number()),
      files: Type.Record(Type.String(), Type.Array(Type.Unknown())),
      time: Type.Object({ elapsed_ms: Type.Number(), time_budget_ms: Type.Number(), stopped_early: Type.Boolean(), skipped: Type.Optional(Type.String()) }),
      next: Type.Optional(Type.String()),
      tagged: Type.Optional(Type.Number()),
      tags_version: Type.Optional(Type.String()),
      ledger_seq: Type.Optional(Type.Number()),
    }),
    tiers: ['full'],
    effect: (args) => (args.mode === 'commit' ? 'write' : 'read'),
    maxEffect: 'write',
    stages: ['review'],
    next: 'xray_retag',
    guide:
      'erosion_candidate: the file\'s own dependencies are upward, forbidden or skipping, or it sits in a cycle spanning layers. overgrowth: code in no layer of the manifest. bedrock: conforms and a test reaches it or its symbols (a tests edge, or use from a test file); unproven: conforms, no test. Test files are left out. A commit replaces each painted file\'s xray:* state tag (other tags stay) and appends a ledger entry.',
    handler: async (args, call) => {
      const { graph, engine } = await structureCall(call);
      const manifest = loadManifest(engine, args, configured);
      const deadline = new Deadline(args.time_budget_ms ?? 10_000, call.signal);
      const scope = scopeFilter(engine, args.scope);
      const g = engine.graph;
      const c = await conformance(g, manifest, scope.has, scope.prefix ?? '', deadline, typeOnlyImportsOf(engine));
      const eroded = new Set(c.violations.map((v) => v.from));
      for (const cycle of c.cycles) if (cycle.layers.length > 1) for (const m of cycle.members) eroded.add(m);
      const fileOf = fileIndexOf(g);
      const states = new Map<string, State>();
      for (let u = 0; u < c.units.units.length; u++) {
        if ((u & 127) === 0) await deadline.pace();
        const path = c.units.units[u];
        const file = g.get(`file:${path}`);
        if (!file || file.isTest) continue;
        let state: State;
        if (eroded.has(path)) state = 'erosion_candidate';
        else if (c.layer[u] < 0) state = 'overgrowth';
        else {
          const fi = g.indexOf(file.id);
          const tested = reachedByTest(g, fi, fileOf) || graph.fileSymbols(path).some((s) => reachedByTest(g, g.indexOf(s.id), fileOf));
          state = tested ? 'bedrock' : 'unproven';
        }
        states.set(file.id, state);
      }
      const topK = args.top_k ?? 10;
      const byState = Object.fromEntries(STATES.map((s) => [s, [] as string[]])) as Record<State, string[]>;
      for (const [id, s] of states) byState[s].push(id.slice('file:'.length));
      const summary = {
        mode: args.mode ?? 'dry_run',
        manifest: manifest.source,
        counts: Object.fromEntries(STATES.map((s) => [s, byState[s].length])),
        files: Object.fromEntries(STATES.map((s) => [s, byState[s].sort().slice(0, topK)])),
        time: deadline.report('files not classified'),
      };
      if (args.mode !== 'commit') return { ...summary, next: 'xray_paint with mode "commit" to store the states as xray:<state> tags' };
      const before = tagsVersion(graph);
      const tags = allTags(graph);
      let changed = 0;
      for (const [id, s] of states) {
        const old = tags.get(id) ?? [];
        const next = [...old.filter((t) => !t.startsWith('xray:')), TAG(s)];
        if (old.length === next.length && next.every((t) => old.includes(t))) continue;
        setTags(graph, id, next);
        changed++;
      }
      const after = tagsVersion(graph);
      const entry = appendLedger(graph, { verb: 'xray_paint', agent_id: call.agentId, summary: `painted ${states.size} file(s), ${changed} tag change(s): ${STATES.map((s) => `${byState[s].length} ${s}`).join(', ')}`, nodes: changed, version_before: before, version_after: after });
      return { ...summary, tagged: changed, tags_version: after, ledger_seq: entry.seq };
    },
  });
}
