/**
 * A host generation: one load of every plugin, with its own hooks, catalog, services and compiled
 * surfaces. Hot reload builds a whole new generation and swaps it in; nothing is patched in place.
 */
import { createHooks, type HostHooks, type Workflow } from './hooks.ts';
import { Catalog, compileSurface, type CatalogView, type HostStatus, type QuarantineRecord, type Surface } from './catalog.ts';
import { loadPlugins, type LoadedPlugin } from './loader.ts';
import { installBuiltinTaps } from './builtin-taps.ts';
import { chooseTier, curateTiers, declaredTierTable, type TierChoice, type TierCuration, type TierTable } from './tiers.ts';
import { suggestNames } from './suggest.ts';
import { ResourceCatalog } from './resources.ts';
import { HttpRouteTable } from './http-routes.ts';
import type { PluginSource } from './plugin.ts';
import type { HostSettings } from './settings.ts';
import type { SessionStore } from './session.ts';
import type { Logger } from './log.ts';
import type { VerbRecord } from './verb.ts';

export interface GenerationOptions {
  id: number;
  sources: PluginSource[];
  settings: HostSettings;
  session: SessionStore;
  log: Logger;
  /** Tier curation from the configuration and enabled bundles, applied after plugins' own `tiers` taps. */
  tierCuration?: Record<string, TierCuration>;
  /** The tier used when none is requested (config `defaultTier`). */
  defaultTier?: string;
  pluginOptions?: Record<string, unknown>;
  /** The host's view of generations and reloads. */
  hostStatus?: () => Omit<HostStatus, 'generation'>;
  /** Sends resources/updated to subscribed clients (plugins call it through their context). */
  resourceUpdated?: (uri: string) => void;
  /** A reload candidate: its quarantines are reported once, in the host's reload-failed line, not one log line each. */
  candidate?: boolean;
}

export class Generation implements CatalogView {
  readonly id: number;
  readonly hooks: HostHooks = createHooks();
  readonly catalog = new Catalog();
  readonly resources = new ResourceCatalog();
  /** HTTP routes plugins registered (served by the HTTP transport only). */
  readonly routes = new HttpRouteTable();
  readonly services = new Map<string, { plugin: string; impl: unknown }>();
  readonly settings: Readonly<HostSettings>;
  readonly session: SessionStore;
  readonly log: Logger;
  loaded: LoadedPlugin[] = [];
  private quarantine: QuarantineRecord[] = [];
  private table?: TierTable;
  private warnings: string[] = [];
  private choice?: TierChoice;
  private readonly surfaces = new Map<string, Surface>();
  private workflowList?: Workflow[];
  /** Calls running on this generation (a retired generation shuts down once they finish). */
  inFlight = 0;
  /** Whether `ready` has run on this generation (it runs once). */
  readyFired = false;

  private constructor(private readonly options: GenerationOptions) {
    this.id = options.id;
    this.settings = Object.freeze({ ...options.settings });
    this.session = options.session;
    this.log = options.log;
  }

  /** Loads every plugin and compiles the catalog; never throws for a bad plugin (it is quarantined). */
  static async create(options: GenerationOptions): Promise<Generation> {
    const g = new Generation(options);
    installBuiltinTaps(g.hooks, g.settings, g.session, g.catalog);
    const { loaded, quarantined } = await loadPlugins(options.sources, {
      hooks: g.hooks,
      catalog: g.catalog,
      view: g,
      services: g.services,
      settings: g.settings,
      session: g.session,
      log: g.log,
      pluginOptions: options.pluginOptions ?? {},
      resources: g.resources,
      routes: g.routes,
      resourceUpdated: (uri) => options.resourceUpdated?.(uri),
      quietQuarantine: options.candidate,
    });
    g.loaded = loaded;
    g.quarantine = quarantined;
    g.compileTiers();
    await g.hooks.boot.promise({ generation: g.id, verbCount: g.catalog.size, plugins: loaded.map((p) => p.name) });
    return g;
  }

  private compileTiers(): void {
    const declared = this.hooks.tiers.call(declaredTierTable(this.catalog.all()));
    const { table, warnings } = curateTiers(declared, this.options.tierCuration ?? {}, this.catalog.names());
    this.table = table;
    this.warnings = warnings;
    for (const w of warnings) this.log.warn(w);
    const fallback = this.options.defaultTier && table.tiers.has(this.options.defaultTier) ? this.options.defaultTier : undefined;
    this.choice = chooseTier(this.settings.requestedTier, table, fallback);
    this.surfaces.clear();
  }

  records(): VerbRecord[] {
    return this.catalog.all();
  }

  get(name: string): VerbRecord | undefined {
    return this.catalog.get(name);
  }

  tierTable(): TierTable {
    return this.table!;
  }

  tierChoice(): TierChoice {
    return this.choice!;
  }

  tierWarnings(): string[] {
    return [...this.warnings];
  }

  /** The surface being served: the chosen tier in the configured mode (compiled once, cached). */
  surface(): Surface {
    return this.surfaceFor(this.choice!.tier);
  }

  surfaceFor(tier: string): Surface {
    const key = `${tier}|${this.settings.readOnly ? 'ro' : 'rw'}`;
    let s = this.surfaces.get(key);
    if (!s) this.surfaces.set(key, (s = compileSurface(this.catalog, this.table!, tier, this.settings.readOnly)));
    return s;
  }

  plugins(): { name: string; version: string; origin?: string; family: string; requires: string[] }[] {
    return this.loaded.map((p) => ({ ...p }));
  }

  quarantined(): QuarantineRecord[] {
    return [...this.quarantine];
  }

  workflows(): Workflow[] {
    this.workflowList ??= this.hooks.workflows.call([]);
    return this.workflowList;
  }

  hostStatus(): HostStatus {
    return { generation: this.id, ...(this.options.hostStatus?.() ?? { serving_generation: this.id }) };
  }

  /**
   * The health sections, tap by tap: a section that throws (a damaged store) is reported in
   * `health_errors` with its plugin, and the other sections still answer (health, doctor and the
   * trust verbs must diagnose a broken plugin, not fail with it).
   */
  async statusReport(): Promise<Record<string, unknown>> {
    let report: Record<string, unknown> = {};
    const failed: { plugin: string; error: string }[] = [];
    for (const tap of this.hooks.health.taps) {
      const { name } = tap;
      try {
        const next = await runTap(tap, [report]);
        if (next !== undefined) report = next as Record<string, unknown>;
      } catch (error) {
        failed.push({ plugin: (error as { plugin?: string }).plugin ?? name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return failed.length ? { ...report, health_errors: failed } : report;
  }

  suggest(name: string, max = 3): string[] {
    return suggestNames(name, this.catalog.names(), max);
  }

  gateTaps(): { name: string; stage: number }[] {
    // tapable keeps `taps` sorted by stage, which is the order the gates run in.
    return this.hooks.gate.taps.map((t) => ({ name: t.name, stage: t.stage ?? 0 }));
  }

  /** Runs the `ready` hook once: the server is serving, background work may start. */
  markReady(): void {
    if (this.readyFired) return;
    this.readyFired = true;
    this.hooks.ready.call();
  }

  /**
   * Runs the shutdown hook (stores and watchers close), its taps one after another in the reverse of
   * plugin load order: plugins load after what they require, so a plugin's work in flight (a daemon
   * cycle writing through the graph's store) ends before what it requires closes. Every tap runs even
   * when one fails; the first failure is rethrown after.
   */
  async shutdown(): Promise<void> {
    let failure: unknown = null;
    for (const tap of [...this.hooks.shutdown.taps].reverse()) {
      try {
        await runTap(tap, []);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
  }
}

/** One tap run on its own, as tapable would run it (tap, tapAsync or tapPromise): its result. */
function runTap(tap: { type: string; fn: Function }, args: unknown[]): Promise<unknown> {
  const fn = tap.fn as (...args: unknown[]) => unknown;
  if (tap.type === 'async') return new Promise((resolve, reject) => fn(...args, (error: unknown, value: unknown) => (error ? reject(error) : resolve(value))));
  return Promise.resolve().then(() => fn(...args));
}
