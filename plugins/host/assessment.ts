/**
 * The shared judgement behind session_handshake, trust_selftest, recovery_playbook and doctor:
 * what the agent's host shows of the surface, whether the workspace binding fits, and what state
 * the graph is in — turned into one trust mode and ordered next steps.
 */
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { CatalogView, HostSettings } from '../../core/index.ts';
import { AGENT_TRUST_REQUIRED, HOST_BINDING_REQUIRED, toolSurfaceContract } from './contract.ts';

/** Parameters in which an agent reports what its host shows it. */
export const ObservedSurface = {
  observed_tool_count: Type.Optional(Type.Integer({ minimum: 0, description: 'm1nd verbs your host lists' })),
  available_tools: Type.Optional(Type.Array(Type.String(), { description: 'their names' })),
  missing_tools: Type.Optional(Type.Array(Type.String())),
  // Compared with the workspace root as text (never opened), so an outside root is reported, not refused.
  scope: Type.Optional(Type.String({ description: 'your repo root', workspacePath: false })),
};

/** Parameters in which an agent reports a misbehaving call. */
export const ObservedCall = {
  observed_tool: Type.Optional(Type.String({ maxLength: 128, description: 'verb that misbehaved' })),
  observed_proof_state: Type.Optional(Type.String()),
  observed_candidates: Type.Optional(Type.Integer({ minimum: 0, description: 'result count seen' })),
  error_text: Type.Optional(Type.String()),
};

export interface Observed {
  observed_tool_count?: number;
  available_tools?: string[];
  missing_tools?: string[];
  scope?: string;
  observed_tool?: string;
  observed_proof_state?: string;
  observed_candidates?: number;
  error_text?: string;
}

export type TrustMode = 'degraded_host_tool_surface' | 'wrong_workspace_binding' | 'needs_ingest' | 'orientation_only' | 'unverified_host_surface' | 'full_trust';

/** A suggested call. A template (`template: true`) has placeholders in the arguments named by `fill`: it cannot run as is. */
export interface Step {
  verb: string;
  arguments: Record<string, unknown>;
  why: string;
  template?: true;
  fill?: string[];
}

/** Runnable steps apart from templates (which need the agent to fill in arguments first). */
export function splitSteps(steps: Step[]): { runnable: Step[]; templates: Step[] } {
  return { runnable: steps.filter((s) => !s.template), templates: steps.filter((s) => s.template) };
}

/** A verb name as the agent's host shows it (`mcp__m1nd__seek`, `m1nd.seek`), without the host's prefix. */
export function normalize(name: string): string {
  return name.trim().replace(/^(mcp__[^_]+__|m1nd[._])/, '');
}

/** What the host shows of the required verbs; `unverified` when the agent reported nothing. */
export function assessToolSurface(catalog: CatalogView, o: Observed) {
  const reported = o.available_tools !== undefined || o.missing_tools !== undefined;
  const available = new Set((o.available_tools ?? []).map(normalize));
  const missingReported = new Set((o.missing_tools ?? []).map(normalize));
  const present: Record<string, boolean | null> = {};
  for (const v of AGENT_TRUST_REQUIRED) {
    // Only what the agent said counts: a count-only or empty report never invents presence or absence.
    present[v] = missingReported.has(v) ? false : o.available_tools !== undefined ? available.has(v) : null;
  }
  const missing = Object.entries(present).filter(([, p]) => p === false).map(([v]) => v);
  const advertised = catalog.surface().counts.advertised;
  const notes: string[] = [];
  if (o.observed_tool_count !== undefined && o.observed_tool_count < advertised) {
    notes.push(`your host lists ${o.observed_tool_count} verbs; this server advertises ${advertised} in tier "${catalog.surface().tier}"`);
  }
  if (o.observed_tool_count !== undefined && o.observed_tool_count < HOST_BINDING_REQUIRED.length) {
    notes.push(`fewer than the ${HOST_BINDING_REQUIRED.length} verbs a safe binding needs`);
  }
  const status = missing.length > 0 ? 'degraded' : reported ? 'verified' : 'unverified';
  return {
    status,
    tool_count: o.observed_tool_count ?? (o.available_tools ? available.size : null),
    advertised_tool_count: advertised,
    required_tools: [...AGENT_TRUST_REQUIRED],
    required_tools_present: present,
    missing_required_tools: missing,
    degraded_host_tool_surface: missing.length > 0,
    notes,
  };
}

/** Whether a reported scope lies inside the served workspace. */
export function assessBinding(settings: Readonly<HostSettings>, scope?: string) {
  if (!scope) return { workspace_root: settings.workspaceRoot, scope: null, wrong_workspace_binding: false };
  const abs = path.resolve(settings.workspaceRoot, scope);
  const rel = path.relative(settings.workspaceRoot, abs);
  // `..` as a whole segment: a folder named `..cache` inside the workspace is inside.
  const outside = rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  return { workspace_root: settings.workspaceRoot, scope: abs, wrong_workspace_binding: outside };
}

/** Files with parse errors as the graph plugin's health section gives them. */
export interface ParseErrorsSection {
  files: number;
  total: number;
  worst: { path: string; errors: number; first_line: number }[];
  truncated: boolean;
}

/** What verbs report of the graph. */
export interface GraphState {
  engine: boolean;
  loaded: boolean;
  node_count: number;
  edge_count: number;
  note?: string;
  /** The graph's status could not be read (its health section failed: a damaged store). */
  error?: string;
  /** The loaded graph's generation, and whether edits are pending re-ingest (as the graph plugin reports them). */
  generation?: number;
  stale?: boolean;
  parse_errors?: ParseErrorsSection;
}

/** A plugin's health section that threw (the host reports it and serves the other sections). */
export interface HealthError {
  plugin: string;
  error: string;
}

/** The health sections that failed, from the status report. */
export function healthErrors(report: Record<string, unknown>): HealthError[] {
  return (report.health_errors as HealthError[] | undefined) ?? [];
}

/** What the graph plugin says of itself beyond its counts, passed through as given. */
const GRAPH_FACTS = ['generation', 'stale', 'store_dir', 'watching', 'watch_error', 'load_error', 'next'] as const;

/** The graph section of the health report, or a plain statement that no graph engine is loaded (or that its status failed). */
export function graphState(report: Record<string, unknown>): GraphState {
  const g = report.graph as ({ loaded?: boolean; node_count?: number; edge_count?: number; parse_errors?: ParseErrorsSection } & Record<string, unknown>) | undefined;
  if (!g) {
    const failed = healthErrors(report).find((e) => e.plugin === 'graph');
    if (failed) return { engine: true, loaded: false, node_count: 0, edge_count: 0, error: failed.error };
    return { engine: false, loaded: false, node_count: 0, edge_count: 0, note: 'no graph engine plugin is loaded: graph verbs are unavailable until one is' };
  }
  const state: Record<string, unknown> = { engine: true, loaded: Boolean(g.loaded), node_count: g.node_count ?? 0, edge_count: g.edge_count ?? 0 };
  for (const k of GRAPH_FACTS) if (g[k] !== undefined) state[k] = g[k];
  // Files that parsed with errors, as the graph plugin reports them (absent when it does not).
  return (g.parse_errors === undefined ? state : { ...state, parse_errors: g.parse_errors }) as unknown as GraphState;
}

/** `next_steps` (runnable) and, when there are any, `next_templates` (to fill in first), for verb results. */
export function nextSteps(steps: Step[]): { next_steps: Step[]; next_templates?: Step[] } {
  const { runnable, templates } = splitSteps(steps);
  return { next_steps: runnable, ...(templates.length ? { next_templates: templates } : {}) };
}

/** Combines surface, binding and graph into one trust mode with an ordered next step list. */
export async function assessSession(catalog: CatalogView, settings: Readonly<HostSettings>, o: Observed, agentId: string) {
  const surface = assessToolSurface(catalog, o);
  const binding = assessBinding(settings, o.scope);
  const report = await catalog.statusReport();
  const graph = graphState(report);
  let trust: TrustMode;
  if (surface.degraded_host_tool_surface) trust = 'degraded_host_tool_surface';
  else if (binding.wrong_workspace_binding) trust = 'wrong_workspace_binding';
  else if (graph.error !== undefined) trust = 'orientation_only';
  else if (graph.engine && graph.node_count === 0) trust = catalog.get('ingest') ? 'needs_ingest' : 'orientation_only';
  else if (!graph.engine) trust = 'orientation_only';
  else if (surface.status === 'unverified') trust = 'unverified_host_surface';
  else trust = 'full_trust';
  return { trust_mode: trust, tool_surface: surface, binding, graph, report, steps: stepsFor(trust, catalog, settings, o, agentId) };
}

/** Ordered next calls for a trust mode (and what the agent observed). */
export function stepsFor(trust: TrustMode, catalog: CatalogView, settings: Readonly<HostSettings>, o: Observed, agentId: string): Step[] {
  const steps: Step[] = [];
  const add = (verb: string, args: Record<string, unknown>, why: string, fill?: string[]) =>
    steps.push({ verb, arguments: { agent_id: agentId, ...args }, why, ...(fill ? { template: true as const, fill } : {}) });
  switch (trust) {
    case 'degraded_host_tool_surface':
      add('help', { mode: 'overview' }, 'see every registered verb: missing ones are callable by name even if your host hides them');
      add('health', {}, 'confirm the server-side registry has the required verbs');
      break;
    case 'wrong_workspace_binding':
      add('health', {}, `this server serves ${settings.workspaceRoot}; start one with M1ND_WORKSPACE=<your repo> or cd there first`);
      break;
    case 'needs_ingest':
      // A read-only server refuses ingest: the move is a writable m1nd, which no verb here starts.
      if (settings.readOnly) add('health', {}, 'the graph is empty and this server is read-only (it refuses ingest): ingest the workspace with a writable m1nd (without --read-only / M1ND_READ_ONLY), then retry');
      else add('ingest', { path: settings.workspaceRoot }, 'the graph is empty: ingest the workspace before retrieval verbs');
      break;
    case 'orientation_only':
      add('doctor', {}, 'no graph is readable (no graph engine loaded, or its status failed); doctor says what to fix');
      break;
    case 'unverified_host_surface':
      add('session_handshake', { available_tools: ['<the m1nd verbs your host lists>'] }, 'report what your host shows so the surface can be verified', ['available_tools']);
      break;
    case 'full_trust':
      break;
  }
  if (o.observed_proof_state === 'blocked') add('help', { mode: 'recovery', error_text: 'M1ND_ERR_GATE_PROOF_UNPROVEN' }, 'a write was blocked by the proof gate: prove targets with the verb it names');
  if (o.error_text) add('help', { mode: 'recovery', error_text: o.error_text }, 'decode the error you saw into next steps');
  if (o.observed_tool && !catalog.get(normalize(o.observed_tool))) {
    add('help', { tool_name: normalize(o.observed_tool) }, `"${o.observed_tool}" is not a registered verb; help suggests the right name`);
  }
  if (o.observed_candidates === 0 && trust === 'full_trust' && catalog.get('ingest') && !settings.readOnly) {
    add('ingest', { path: settings.workspaceRoot, incremental: true }, 'an empty answer on a loaded graph can mean stale files: refresh incrementally, then retry');
  }
  return steps.filter((s) => catalog.get(s.verb) !== undefined);
}

export { toolSurfaceContract };
