/**
 * The structure family: the shape of the code and the rules a team wants it to keep — layers
 * inferred from topology, pattern scans over the code itself (tree-sitter queries plus graph
 * conditions), structural twins, taint paths, and community-based refactor plans.
 */
import { definePlugin, Type } from '../../core/index.ts';
import type { GraphService } from '../graph/api.ts';
import { closeFactsStore, factsCounters } from './facts-cache.ts';
import { FactsWarmer } from './facts-warmer.ts';
import { FINDINGS_KEY, registerFindingsExtension } from './ingest-findings.ts';
import { keepCapture, shapesToCapture, type LearnCapture } from './learn-capture.ts';
import './grammars.ts';
import { PatternSpecSchema, type PatternSpec } from './scan-params.ts';
import { antibodyCreateVerb } from './verbs/antibody_create.ts';
import { auditVerb } from './verbs/audit.ts';
import { antibodyListVerb } from './verbs/antibody_list.ts';
import { antibodyScanVerb } from './verbs/antibody_scan.ts';
import { flowSimulateVerb } from './verbs/flow_simulate.ts';
import { layersVerb } from './verbs/layers.ts';
import { layerInspectVerb } from './verbs/layer_inspect.ts';
import { refactorPlanVerb } from './verbs/refactor_plan.ts';
import { scanVerb } from './verbs/scan.ts';
import { scanAllVerb } from './verbs/scan_all.ts';
import { taintTraceVerb } from './verbs/taint_trace.ts';
import { twinsVerb } from './verbs/twins.ts';
import { xrayApplyVerb } from './verbs/xray_apply.ts';
import { xrayGateVerb } from './verbs/xray_gate.ts';
import { xrayLedgerVerb } from './verbs/xray_ledger.ts';
import { xrayOrientVerb } from './verbs/xray_orient.ts';
import { xrayPaintVerb } from './verbs/xray_paint.ts';
import { xrayRetagVerb } from './verbs/xray_retag.ts';
import { ManifestSchema, type ManifestInput } from './xray/manifest.ts';

const Options = Type.Object({
  patterns: Type.Array(PatternSpecSchema, { default: [], maxItems: 64, description: 'Team scan patterns (tree-sitter query or keywords), run by scan_all and by name in scan' }),
  layers: Type.Optional(ManifestSchema),
  backgroundFacts: Type.Boolean({ default: true, description: 'Compute every code file\'s scan facts and shapes in the background after the graph loads or changes, so the first scan or twins is warm' }),
  ingestFindings: Type.Boolean({ default: true, description: 'Compute the built-in scan rules\' findings inside the ingest\'s parse (a parse extension), so a scan right after an ingest parses nothing' }),
});

export interface StructureOptions {
  patterns: PatternSpec[];
  /** The layer manifest xray uses when the repository has no m1nd.layers.json. */
  layers?: ManifestInput;
  backgroundFacts: boolean;
  ingestFindings: boolean;
}

export default definePlugin<StructureOptions>({
  name: 'structure',
  version: '0.1.0',
  description: 'Structure: layers, pattern scans, twins, taint paths, refactor plans, xray layer manifests.',
  requires: ['graph', 'locks'],
  options: Options,
  apply(ctx) {
    const patterns = ctx.options.patterns ?? [];
    ctx.registerVerb(layersVerb);
    ctx.registerVerb(layerInspectVerb);
    ctx.registerVerb(scanVerb(patterns));
    ctx.registerVerb(scanAllVerb(patterns));
    ctx.registerVerb(twinsVerb);
    ctx.registerVerb(taintTraceVerb);
    ctx.registerVerb(refactorPlanVerb);
    ctx.registerVerb(flowSimulateVerb);
    ctx.registerVerb(antibodyCreateVerb);
    ctx.registerVerb(antibodyListVerb);
    ctx.registerVerb(antibodyScanVerb);
    ctx.registerVerb(xrayOrientVerb(ctx.options.layers));
    ctx.registerVerb(xrayGateVerb(ctx.options.layers));
    ctx.registerVerb(xrayApplyVerb);
    ctx.registerVerb(xrayPaintVerb(ctx.options.layers));
    ctx.registerVerb(xrayRetagVerb);
    ctx.registerVerb(xrayLedgerVerb);
    ctx.registerVerb(auditVerb);

    const graph = ctx.service<GraphService>('graph');
    if (ctx.options.ingestFindings !== false) registerFindingsExtension(graph);
    const warmer = new FactsWarmer(graph, (message) => ctx.log.warn(`structure: background facts job failed: ${message}`));
    if (ctx.options.backgroundFacts !== false) {
      // After the stored graph loads (the graph plugin starts that on `ready`; a freshness check waits for it).
      ctx.hooks.ready.tap('structure', () => {
        setImmediate(() => {
          graph.fresh().then(
            () => warmer.poke(),
            () => undefined, // nothing ingested yet: the ingest call pokes it
          );
        }).unref();
      });
      // Any call may have changed the graph (ingest, or edits a freshness check picked up).
      ctx.hooks.afterCall.tap('structure', () => warmer.poke());
    }
    // A learn correction: the confirmed nodes' shapes are read before learn runs (the code as
    // confirmed) and kept once it succeeded (antibody_create pattern.from_learn).
    const captures = new WeakMap<object, Promise<LearnCapture | null>>();
    // A callback tap: every call but `learn` passes synchronously.
    ctx.hooks.beforeCall.tapAsync('structure:learn', (call, done) => {
      if (call.name !== 'learn') return done();
      const args = call.args as { query?: string; feedback?: string; node_ids?: string[] };
      const capture = shapesToCapture(graph, { agent: call.ctx.agentId, query: args.query ?? '', feedback: args.feedback ?? '', nodeIds: args.node_ids ?? [] }).catch(() => null);
      captures.set(call, capture);
      capture.then(() => done());
    });
    ctx.hooks.afterCall.tap('structure:learn', (call, outcome) => {
      if (call.name !== 'learn') return;
      const capture = captures.get(call);
      if (capture && outcome.kind === 'ok') keepCapture(graph, capture);
    });
    ctx.hooks.health.tapPromise('structure', async (report) => ({ ...report, structure: { background_facts: { ...warmer.status }, facts: { parsed: factsCounters.computed, from_store: factsCounters.fromStore, from_cache: factsCounters.fromCache, from_ingest: factsCounters.fromIngest }, ingest_findings: graph.engine.parseExtensionReport()[FINDINGS_KEY] ?? null } }));
    ctx.hooks.shutdown.tapPromise('structure', async () => {
      await warmer.stop();
      closeFactsStore(graph.engine.storeDir);
    });
  },
});
