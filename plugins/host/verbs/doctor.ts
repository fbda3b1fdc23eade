/** doctor: concrete diagnostics of the host (runtime, store, plugins, gates, tokenizer, graph) with fixes. */
import fs from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { AgentId, countTokens, defineVerb, StringEnum, NODE_ENGINE, type CatalogView, type PluginContext } from '../../../core/index.ts';
import { assessSession, healthErrors, nextSteps, normalize, ObservedCall, ObservedSurface, type GraphState, type ParseErrorsSection } from '../assessment.ts';
import { serverStatus, surfaceInvariantFailures } from '../contract.ts';
import { gatesFinding, nodeFinding, type Finding } from '../doctor-checks.ts';

function storeWritable(dir: string): Finding {
  try {
    // The store creates missing folders (mkdir -p): what must be writable is the nearest one that exists.
    let probeDir = dir;
    while (!fs.existsSync(probeDir) && path.dirname(probeDir) !== probeDir) probeDir = path.dirname(probeDir);
    if (!fs.statSync(probeDir).isDirectory()) throw new Error(`${probeDir} is a file, not a folder`);
    fs.accessSync(probeDir, fs.constants.W_OK);
    return { check: 'store_dir', ok: true, detail: `${dir} is writable${fs.existsSync(dir) ? '' : ' (created on first write)'}` };
  } catch (error) {
    return { check: 'store_dir', ok: false, detail: `${dir}: ${(error as Error).message}`, fix: 'point M1ND_STORE_DIR at a writable folder' };
  }
}

/** Files that parse with errors: their symbols there are missing from the graph, so answers about them are partial. */
function parseErrorFinding(graph: { parse_errors?: ParseErrorsSection }): Finding | undefined {
  const pe = graph.parse_errors;
  if (pe === undefined) return undefined;
  if (pe.files === 0) return { check: 'parse_errors', ok: true, detail: 'every ingested file parsed without errors' };
  const worst = pe.worst.map((f) => `${f.path}:${f.first_line} (${f.errors})`).join(', ');
  return {
    check: 'parse_errors',
    ok: false,
    detail: `${pe.files} file(s) parse with errors (${pe.total} in all); worst ${worst}${pe.truncated ? ', …' : ''}`,
    fix: 'declarations inside the broken regions are left out of the graph: view those lines; fix real syntax errors, or treat answers about these files as partial',
  };
}

/** Where shared memory persists (the state plugin's health section): kind, schema version, round trip. */
function teamStoreFinding(section: unknown): Finding | undefined {
  const s = section as { kind: string; location: string; schema_version: number | null; known_schema_version: number | null; connected: boolean; round_trip_ms: number | null; error?: string } | undefined;
  if (!s) return undefined;
  const newer = s.schema_version !== null && s.known_schema_version !== null && s.schema_version > s.known_schema_version;
  const where = `${s.kind} store ${s.location}${s.schema_version !== null ? `, schema version ${s.schema_version}` : ''}`;
  if (!s.connected) return { check: 'team_store', ok: false, detail: `${where} is unreachable: ${s.error ?? 'no answer'}`, fix: 'start the database or fix storage.url / M1ND_STORE_URL; team verbs fail until then, local verbs work' };
  if (newer) return { check: 'team_store', ok: false, detail: `${where} is newer than this m1nd (${s.known_schema_version}): read-only`, fix: 'upgrade m1nd on this machine' };
  return { check: 'team_store', ok: true, detail: `${where}, round trip ${s.round_trip_ms} ms` };
}

/** health's status, so doctor never calls healthy what health calls degraded. */
function serverFinding(catalog: CatalogView, report: Record<string, unknown>): Finding {
  const { status, reasons } = serverStatus(catalog, report);
  const reload = catalog.hostStatus().last_reload_error;
  return {
    check: 'server_status',
    ok: status === 'ok',
    detail: status === 'ok' ? 'health status ok' : `health status degraded: ${reasons.join('; ')}`,
    fix: status === 'ok' ? undefined : reload ? 'fix the plugin file the reload failed on and save it again (the dev server reloads it)' : 'see the plugin and graph findings below',
  };
}

/** The graph: its counts, or why it cannot be read and what rebuilds it. */
function graphFinding(graph: GraphState, storeDir: string, readOnly: boolean): Finding {
  if (graph.error !== undefined) {
    const db = path.join(storeDir, 'm1nd.db');
    return { check: 'graph', ok: false, detail: `the graph's status cannot be read: ${graph.error}`, fix: `if ${db} is damaged, move it aside (the memory and checkpoints kept in it go with it) and call ingest: it rebuilds the graph from the files` };
  }
  if (!graph.engine) return { check: 'graph', ok: false, detail: String(graph.note), fix: 'load a plugin that provides the graph service' };
  const stale = graph.stale === true ? '; stale: edits not yet re-ingested (the next graph query re-ingests them)' : '';
  const generation = graph.generation !== undefined ? ` (generation ${graph.generation})` : '';
  return { check: 'graph', ok: graph.node_count > 0, detail: `${graph.node_count} nodes, ${graph.edge_count} edges${generation}${stale}`, ...(graph.node_count === 0 ? { fix: readOnly ? 'this server is read-only (it refuses ingest): ingest the workspace with a writable m1nd, then retry' : 'call ingest on the workspace' } : {}) };
}

/** The doctor verb. */
export function doctorVerb(ctx: PluginContext, catalog: CatalogView) {
  return defineVerb({
    name: 'doctor',
    description: 'Diagnose the server: runtime, store, plugins, gates, tokenizer, graph; each finding with a fix, then ordered next steps.',
    input: Type.Object({ agent_id: AgentId, ...ObservedCall, ...ObservedSurface }),
    output: Type.Object({ status: StringEnum(['healthy', 'attention']), findings: Type.Array(Type.Object({ check: Type.String(), ok: Type.Boolean() })), failing: Type.Integer() }),
    tiers: ['essential'],
    effect: 'read',
    stages: ['diagnose', 'operate'],
    guide:
      'node: this Node against package.json engines.node (semver). gates: the built-in read-only, proof and validation gate taps are installed at their stages and run before plugin gates, and with the proof gate on some verb proves the targets it guards. next_steps are runnable as given; next_templates need their `fill` arguments first.',
    handler: async (args, call) => {
      const a = await assessSession(catalog, ctx.settings, args, call.agentId);
      const findings: Finding[] = [
        nodeFinding(process.versions.node, NODE_ENGINE),
        storeWritable(ctx.settings.storeDir),
        { check: 'tokenizer', ok: countTokens('hello world') === 2, detail: 'BPE tokenizer (o200k_base) counts "hello world" as 2 tokens' },
        serverFinding(catalog, a.report),
        ...catalog.quarantined().map((q) => ({ check: `plugin:${q.plugin}`, ok: false, detail: `${q.code} at ${q.check}: ${q.message}`, fix: `fix ${q.origin ?? q.plugin}; the rest of the host is serving` })),
        ...healthErrors(a.report)
          .filter((e) => e.plugin !== 'graph')
          .map((e) => ({ check: `plugin:${e.plugin}`, ok: false, detail: `its status failed: ${e.error}`, fix: `its verbs may fail the same way: fix what the error names (restart the server after)` })),
        ...surfaceInvariantFailures(catalog).map((f) => ({ check: 'surface', ok: false, detail: f })),
        gatesFinding(ctx.settings, catalog),
        {
          check: 'tier',
          ok: !catalog.tierChoice().unknown,
          detail: `serving tier "${catalog.tierChoice().tier}"${catalog.tierChoice().unknown ? ` (requested "${catalog.tierChoice().requested}" is unknown)` : ''}`,
          fix: catalog.tierChoice().unknown ? `set M1ND_TOOL_TIER to one of ${[...catalog.tierTable().tiers.keys()].join(', ')}` : undefined,
        },
        graphFinding(a.graph, ctx.settings.storeDir, ctx.settings.readOnly),
      ];
      const store = teamStoreFinding(a.report.team_store);
      if (store !== undefined) findings.push(store);
      const parseErrors = parseErrorFinding(a.graph);
      if (parseErrors !== undefined) findings.push(parseErrors);
      if (args.observed_tool) {
        // As the host names it (`mcp__m1nd__seek` is seek), the way the next steps read it.
        const name = normalize(args.observed_tool);
        const known = catalog.get(name);
        const as = name === args.observed_tool ? '' : ` (your host's name for ${name})`;
        findings.push({ check: 'observed_tool', ok: known !== undefined, detail: known ? `${args.observed_tool}${as} is registered (plugin ${known.plugin})` : `${args.observed_tool} is not registered`, fix: known ? undefined : `did you mean ${catalog.suggest(name).join(', ')}?` });
      }
      const failing = findings.filter((f) => !f.ok);
      return { status: failing.length === 0 ? 'healthy' : 'attention', trust_mode: a.trust_mode, findings, failing: failing.length, ...nextSteps(a.steps) };
    },
  });
}
