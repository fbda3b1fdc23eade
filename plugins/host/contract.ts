/**
 * The tool-surface contract: verbs an agent must see to trust and recover the server. The lists
 * are fixed here (not derived from the registry) so a verb whose plugin failed to load is still
 * reported missing.
 */
import type { CatalogView } from '../../core/index.ts';

/** Verbs an agent needs to trust answers and recover from trouble. */
export const AGENT_TRUST_REQUIRED = ['health', 'trust_selftest', 'recovery_playbook', 'doctor', 'ingest', 'seek', 'help'] as const;
/** What a host must expose to bind an agent safely: the trust set plus session_handshake. */
export const HOST_BINDING_REQUIRED = [...AGENT_TRUST_REQUIRED, 'session_handshake'] as const;

/** The `tool_surface_contract` block of health, computed live from the catalog. */
export function toolSurfaceContract(catalog: CatalogView) {
  const surface = catalog.surface();
  const registered = new Set(catalog.records().map((r) => r.name));
  return {
    schema: 'm1nd-tool-surface-contract-v1',
    full_registry_tool_count: surface.counts.registry,
    advertised_tool_count: surface.counts.advertised,
    tool_tier: surface.tier,
    required_agent_trust_tools: [...AGENT_TRUST_REQUIRED],
    required_host_visible_tools: [...HOST_BINDING_REQUIRED],
    minimum_safe_tool_count: HOST_BINDING_REQUIRED.length,
    degraded_if_missing_any: [...HOST_BINDING_REQUIRED],
    missing_from_registry: HOST_BINDING_REQUIRED.filter((v) => !registered.has(v)),
    missing_from_advertised: HOST_BINDING_REQUIRED.filter((v) => !surface.advertised.has(v)),
    recovery_tool: 'recovery_playbook',
    diagnostic_tool: 'doctor',
  };
}

/** Invariant checks of the served surface; each failure is a sentence. */
export function surfaceInvariantFailures(catalog: CatalogView): string[] {
  const failures: string[] = [];
  const surface = catalog.surface();
  for (const name of surface.advertised) {
    if (!surface.dispatch.has(name)) failures.push(`advertised verb "${name}" has no dispatch entry`);
  }
  for (const r of catalog.records()) {
    if (!surface.dispatch.has(r.name)) failures.push(`registered verb "${r.name}" is not dispatchable`);
    if (!surface.help.has(r.name)) failures.push(`registered verb "${r.name}" is unknown to help`);
  }
  if (surface.counts.registry !== catalog.records().length) failures.push('registry count differs from the catalog');
  return failures;
}

/**
 * The server's status, the one source health and doctor both report: degraded while a plugin is
 * quarantined or cannot report its status (its section of `report` failed), a contract verb is
 * missing, or the last hot reload failed (the previous generation serves). Each reason is a sentence.
 */
export function serverStatus(catalog: CatalogView, report: Record<string, unknown> = {}): { status: 'ok' | 'degraded'; reasons: string[] } {
  const reasons: string[] = [];
  for (const q of catalog.quarantined()) reasons.push(`plugin ${q.plugin} is quarantined (${q.code}): ${q.message}`);
  for (const e of (report.health_errors as { plugin: string; error: string }[] | undefined) ?? []) reasons.push(`plugin ${e.plugin} cannot report its status: ${e.error}`);
  const missing = toolSurfaceContract(catalog).missing_from_registry;
  if (missing.length > 0) reasons.push(`contract verbs not registered: ${missing.join(', ')}`);
  const reload = catalog.hostStatus().last_reload_error;
  if (reload) reasons.push(`hot reload to generation ${reload.generation} failed at ${reload.at}: ${reload.error ?? 'unknown error'}; the previous generation serves`);
  return { status: reasons.length > 0 ? 'degraded' : 'ok', reasons };
}
