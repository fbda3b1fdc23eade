/**
 * Loads plugins into a generation. Plugins are ordered by requires/provides, then each passes
 * small named checks (name, core version, dependencies, options, apply, verbs, services). A plugin
 * that fails one is quarantined with a coded error naming it and the check; the rest still load.
 * A plugin taps a scratch hook table during apply; its taps, verbs and services are committed only
 * when every check has passed, so a quarantined plugin leaves nothing behind (taps cannot be removed).
 */
import semver from 'semver';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { createHooks, type HostHooks, type HookName } from './hooks.ts';
import { ErrorCodes, M1ndError, toM1ndError, type ErrorCode } from './errors.ts';
import type { PluginContext, PluginDefinition, PluginSource } from './plugin.ts';
import type { Catalog, CatalogView, QuarantineRecord } from './catalog.ts';
import { isLazyHandler, lazyHandler, type VerbDefinition, type VerbRecord } from './verb.ts';
import { ResourceCatalog, type PromptDefinition, type ResourceDefinition } from './resources.ts';
import type { Logger } from './log.ts';
import type { HttpRouteDefinition, HttpRouteTable } from './http-routes.ts';
import type { SessionStore } from './session.ts';
import type { HostSettings } from './settings.ts';
import { CORE_VERSION } from './version.ts';
import { compilesSurely } from './validation.ts';

const PLUGIN_NAME = /^[a-z][a-z0-9-]*$/;
const VERB_NAME = /^[a-z][a-z0-9_]*$/;

class CheckFailed extends Error {
  constructor(readonly check: string, readonly code: ErrorCode, message: string) {
    super(message);
  }
}

export interface LoadEnvironment {
  hooks: HostHooks;
  catalog: Catalog;
  view: CatalogView;
  services: Map<string, { plugin: string; impl: unknown }>;
  settings: Readonly<HostSettings>;
  session: SessionStore;
  log: Logger;
  /** Per-plugin options from the configuration, keyed by plugin name. */
  pluginOptions: Record<string, unknown>;
  resources: ResourceCatalog;
  /** HTTP routes plugins serve (core/http-routes.ts). */
  routes: HttpRouteTable;
  /** Sends resources/updated to the clients subscribed to a URI. */
  resourceUpdated(uri: string): void;
  /** Log quarantines at debug level: the caller reports them itself (a reload's one failure line). */
  quietQuarantine?: boolean;
}

export interface LoadedPlugin {
  name: string;
  version: string;
  family: string;
  origin?: string;
  /** Services the plugin consumes (a service provider can tell which verbs depend on it). */
  requires: string[];
}

/** Orders sources so that providers come before their consumers (stable otherwise). */
export function orderByServices(sources: PluginSource[]): PluginSource[] {
  const pending = [...sources];
  const ordered: PluginSource[] = [];
  const provided = new Set<string>();
  while (pending.length > 0) {
    const i = pending.findIndex((s) => (s.definition?.requires ?? []).every((r) => provided.has(r)));
    // Nothing is ready: the rest have unmet or cyclic requirements; keep their order so checks name them.
    const next = pending.splice(i === -1 ? 0 : i, 1)[0];
    ordered.push(next);
    for (const p of next.definition?.provides ?? []) provided.add(p);
  }
  return ordered;
}

/** Applies every plugin; returns what loaded and what was quarantined. */
export async function loadPlugins(sources: PluginSource[], env: LoadEnvironment): Promise<{ loaded: LoadedPlugin[]; quarantined: QuarantineRecord[] }> {
  const loaded: LoadedPlugin[] = [];
  const quarantined: QuarantineRecord[] = [];
  const names = new Set<string>();
  /** Services whose declared provider was quarantined, and that provider. */
  const quarantinedProviders = new Map<string, string>();
  for (const source of orderByServices(sources)) {
    const name = source.definition?.name ?? source.fallbackName ?? source.origin ?? '(unnamed)';
    /** Verb names the plugin declared or registered, so a call to one can say why it is missing. */
    const verbNames = new Set<string>(declaredVerbs(source.definition));
    try {
      const plugin = await loadOne(source, names, env, quarantinedProviders, verbNames);
      loaded.push(plugin);
      names.add(plugin.name);
    } catch (error) {
      const record: QuarantineRecord =
        error instanceof CheckFailed
          ? { plugin: name, code: error.code, check: error.check, message: error.message, origin: source.origin }
          : { plugin: name, code: ErrorCodes.PLUGIN_APPLY, check: 'apply', message: toM1ndError(error).message, origin: source.origin };
      // Names of other plugins' verbs (a duplicate) stay theirs: only names nobody else serves are recorded.
      const own = [...verbNames].filter((v) => typeof v === 'string' && VERB_NAME.test(v) && !env.catalog.get(v));
      if (own.length > 0) record.verbs = own;
      quarantined.push(record);
      for (const p of source.definition?.provides ?? []) if (!env.services.has(p)) quarantinedProviders.set(p, name);
      (env.quietQuarantine ? env.log.debug : env.log.error)(`plugin "${name}" quarantined (${record.check}): ${record.message}`, { code: record.code });
    }
  }
  return { loaded, quarantined };
}

/** The `verbs` a definition declares, when it is a list of strings (anything else is ignored). */
function declaredVerbs(def: PluginDefinition<any> | undefined): string[] {
  const list: unknown = def?.verbs;
  return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
}

async function loadOne(source: PluginSource, names: Set<string>, env: LoadEnvironment, quarantinedProviders: Map<string, string>, verbNames: Set<string>): Promise<LoadedPlugin> {
  if (source.importError !== undefined || !source.definition) {
    const why = source.importError instanceof Error ? source.importError.message : 'module has no default-exported plugin';
    throw new CheckFailed('import', ErrorCodes.PLUGIN_IMPORT, `plugin "${source.fallbackName ?? source.origin}" could not be imported: ${why}`);
  }
  const def = source.definition;
  checkName(def, names);
  checkCoreVersion(def);
  checkDependencies(def, env, quarantinedProviders);
  const options = checkOptions(def, env.pluginOptions[def.name]);
  const family = def.family ?? def.name;
  const scratch = createHooks();
  const verbs: VerbRecord[] = [];
  const resources: ResourceDefinition[] = [];
  const prompts: PromptDefinition[] = [];
  const routes: HttpRouteDefinition[] = [];
  const services = new Map<string, unknown>();
  const ctx: PluginContext = {
    name: def.name,
    log: env.log.child(def.name),
    options,
    settings: env.settings,
    session: env.session,
    hooks: scratch,
    catalog: env.view,
    registerVerb: (v: VerbDefinition<any>) => {
      if (typeof v?.name === 'string') verbNames.add(v.name);
      // A lazily loaded verb gets a stand-in handler that imports its module on the first call.
      const handler = typeof v?.load === 'function' && v.handler === undefined && typeof v.name === 'string' ? lazyHandler(v.name, v.load) : v?.handler;
      verbs.push({ ...v, handler, plugin: def.name, family, tiers: v.tiers ?? ['full'], advertised: v.advertised ?? true } as VerbRecord);
    },
    provide: (service, impl) => {
      if (!(def.provides ?? []).includes(service)) {
        throw new M1ndError(ErrorCodes.PLUGIN_SERVICE, `plugin "${def.name}" provides undeclared service "${service}"; add it to \`provides\``);
      }
      services.set(service, impl);
    },
    service: <T>(service: string) => requireService<T>(def, service, env),
    registerResource: (r) => void resources.push(r),
    registerPrompt: (p) => void prompts.push(p),
    resourceUpdated: (uri) => env.resourceUpdated(uri),
    registerHttpRoute: (r) => void routes.push(r),
  };
  try {
    await def.apply(ctx);
  } catch (error) {
    throw new CheckFailed('apply', ErrorCodes.PLUGIN_APPLY, `plugin "${def.name}" threw in apply: ${toM1ndError(error).message}`);
  }
  checkVerbs(def.name, verbs, env.catalog, source.builtin === true);
  const declared = declaredVerbs(def);
  if (declared.length > 0) {
    // A stale `verbs` list would make a quarantine answer name the wrong verbs: say so while it loads.
    const registered = new Set(verbs.map((v) => v.name));
    const undeclared = [...registered].filter((n) => !declared.includes(n));
    const missing = declared.filter((n) => !registered.has(n));
    if (undeclared.length + missing.length > 0) {
      env.log.warn(`plugin "${def.name}": its \`verbs\` list does not match what it registers (not listed: ${undeclared.join(', ') || 'none'}; not registered: ${missing.join(', ') || 'none'})`);
    }
  }
  for (const p of def.provides ?? []) {
    if (!services.has(p)) throw new CheckFailed('services', ErrorCodes.PLUGIN_SERVICE, `plugin "${def.name}" declares service "${p}" but did not provide it in apply`);
  }
  checkResources(def.name, resources, prompts, env.resources);
  checkRoutes(def.name, routes, env.routes);
  // Every check passed: commit taps, verbs, resources, prompts and services.
  commitTaps(def.name, scratch, env.hooks);
  for (const v of verbs) env.catalog.add(env.hooks.registerVerb.call(v));
  for (const r of resources) env.resources.addResource(def.name, r);
  for (const p of prompts) env.resources.addPrompt(def.name, p);
  for (const r of routes) env.routes.add(def.name, r);
  for (const [k, impl] of services) env.services.set(k, { plugin: def.name, impl });
  return { name: def.name, version: def.version, family, origin: source.origin, requires: [...(def.requires ?? [])] };
}

/** Resources and prompts: valid URIs and names, unique across plugins and within this one. */
function checkResources(plugin: string, resources: ResourceDefinition[], prompts: PromptDefinition[], catalog: ResourceCatalog): void {
  const scratch = new ResourceCatalog();
  for (const existing of catalog.allResources()) scratch.addResource(existing.plugin, existing);
  for (const existing of catalog.allPrompts()) scratch.addPrompt(existing.plugin, existing);
  for (const r of resources) {
    const problem = scratch.resourceProblem(plugin, r);
    if (problem) throw new CheckFailed('resources', ErrorCodes.PLUGIN_RESOURCE, problem);
    scratch.addResource(plugin, r);
  }
  for (const p of prompts) {
    const problem = scratch.promptProblem(plugin, p);
    if (problem) throw new CheckFailed('resources', ErrorCodes.PLUGIN_RESOURCE, problem);
    scratch.addPrompt(plugin, p);
  }
}

/** HTTP routes: valid methods and paths, none taken by another plugin, by this one twice, or by the transport. */
function checkRoutes(plugin: string, routes: HttpRouteDefinition[], table: HttpRouteTable): void {
  const mine: HttpRouteDefinition[] = [];
  for (const r of routes) {
    const problem = table.problem(plugin, r) ?? (mine.some((m) => m.method === r.method && m.path === r.path) ? `plugin "${plugin}" registers HTTP route ${r.method} ${r.path} twice` : undefined);
    if (problem) throw new CheckFailed('routes', ErrorCodes.PLUGIN_ROUTE, problem);
    mine.push(r);
  }
}

function checkName(def: PluginDefinition<any>, names: Set<string>): void {
  if (typeof def.name !== 'string' || !PLUGIN_NAME.test(def.name)) {
    throw new CheckFailed('name', ErrorCodes.PLUGIN_NAME, `plugin name ${JSON.stringify(def.name)} must be kebab-case (a-z, 0-9, -)`);
  }
  if (names.has(def.name)) throw new CheckFailed('name', ErrorCodes.PLUGIN_NAME, `plugin "${def.name}" is loaded twice; rename one`);
  if (typeof def.apply !== 'function') throw new CheckFailed('name', ErrorCodes.PLUGIN_NAME, `plugin "${def.name}" has no apply(ctx) function`);
}

function checkCoreVersion(def: PluginDefinition<any>): void {
  if (def.core === undefined) return;
  if (!semver.validRange(def.core)) throw new CheckFailed('core-version', ErrorCodes.PLUGIN_VERSION, `plugin "${def.name}" has an invalid core range ${JSON.stringify(def.core)}`);
  if (!semver.satisfies(CORE_VERSION, def.core, { includePrerelease: true })) {
    throw new CheckFailed('core-version', ErrorCodes.PLUGIN_VERSION, `plugin "${def.name}" supports m1nd core ${def.core}, this is ${CORE_VERSION}`);
  }
}

function checkDependencies(def: PluginDefinition<any>, env: LoadEnvironment, quarantinedProviders: Map<string, string>): void {
  const missing = (def.requires ?? []).filter((r) => !env.services.has(r));
  if (missing.length === 0) return;
  // A provider that was quarantined is the cause: name it, so one broken plugin reads as one failure.
  const cause = missing.map((m) => quarantinedProviders.get(m)).find((p) => p !== undefined);
  throw new CheckFailed(
    'dependencies',
    ErrorCodes.PLUGIN_DEPENDENCY,
    cause
      ? `plugin "${def.name}" requires service${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} from plugin "${cause}", which was quarantined (fix "${cause}" first)`
      : `plugin "${def.name}" requires service${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} that no loaded plugin provides`,
  );
}

function checkOptions(def: PluginDefinition<any>, raw: unknown): Record<string, unknown> {
  if (!def.options) return (raw ?? {}) as Record<string, unknown>;
  const value = Value.Default(def.options, structuredClone(raw ?? {}));
  const first = Value.Errors(def.options, value).First();
  if (first) throw new CheckFailed('options', ErrorCodes.PLUGIN_OPTIONS, `plugin "${def.name}" options${first.path}: ${first.message}`);
  return value as Record<string, unknown>;
}

function checkSchema(plugin: string, verb: string, which: string, schema: TSchema | undefined, builtin: boolean): void {
  if (!schema || schema.type !== 'object' || typeof schema.properties !== 'object') {
    throw new CheckFailed('schema', ErrorCodes.VERB_SCHEMA, `verb "${verb}" of plugin "${plugin}": ${which} schema must be a TypeBox Type.Object`);
  }
  // Compiled on the verb's first call (core/validation.ts checkerFor); at load only when a cheap
  // walk cannot tell that it compiles, so a broken schema still quarantines its plugin here. A
  // built-in plugin's schemas were checked by the bundle's build (the walk was ~10% of `m1nd call`'s
  // start); one that failed anyway would fail its verb's first call with VERB_SCHEMA.
  if (!builtin && !compilesSurely(schema)) try {
    TypeCompiler.Compile(schema);
  } catch (error) {
    throw new CheckFailed('schema', ErrorCodes.VERB_SCHEMA, `verb "${verb}" of plugin "${plugin}": ${which} schema does not compile: ${(error as Error).message}`);
  }
  // Parameter names are snake_case; a result's keys are the verb's own business.
  if (which !== 'input') return;
  for (const key of Object.keys(schema.properties)) {
    if (!VERB_NAME.test(key)) throw new CheckFailed('schema', ErrorCodes.VERB_SCHEMA, `verb "${verb}" of plugin "${plugin}": parameter "${key}" must be snake_case`);
  }
}

function checkVerbs(plugin: string, verbs: VerbRecord[], catalog: Catalog, builtin: boolean): void {
  const seen = new Set<string>();
  for (const v of verbs) {
    if (typeof v.name !== 'string' || !VERB_NAME.test(v.name)) {
      throw new CheckFailed('verbs', ErrorCodes.VERB_NAME, `plugin "${plugin}" registers a verb named ${JSON.stringify(v.name)}; names are snake_case`);
    }
    const owner = catalog.get(v.name)?.plugin ?? (seen.has(v.name) ? plugin : undefined);
    if (owner) {
      throw new CheckFailed('verbs', ErrorCodes.VERB_DUPLICATE, `verb "${v.name}" is registered by plugin "${owner}" and again by plugin "${plugin}"; rename one`);
    }
    seen.add(v.name);
    if (v.load !== undefined && (typeof v.load !== 'function' || !isLazyHandler(v.handler))) {
      throw new CheckFailed('verbs', ErrorCodes.VERB_SCHEMA, `verb "${v.name}" of plugin "${plugin}" gives both \`handler\` and \`load\`, or a \`load\` that is not a function; give one of them`);
    }
    if (typeof v.handler !== 'function') throw new CheckFailed('verbs', ErrorCodes.VERB_SCHEMA, `verb "${v.name}" of plugin "${plugin}" has no handler (give \`handler\`, or \`load\` to import it on the first call)`);
    if (typeof v.description !== 'string' || v.description.trim() === '') {
      throw new CheckFailed('verbs', ErrorCodes.VERB_SCHEMA, `verb "${v.name}" of plugin "${plugin}" needs a description`);
    }
    checkSchema(plugin, v.name, 'input', v.input, builtin);
    if (v.output) checkSchema(plugin, v.name, 'output', v.output, builtin);
  }
}

function requireService<T>(def: PluginDefinition<any>, service: string, env: LoadEnvironment): T {
  if (!(def.requires ?? []).includes(service)) {
    throw new M1ndError(ErrorCodes.PLUGIN_SERVICE, `plugin "${def.name}" uses service "${service}" without declaring it in \`requires\``, { plugin: def.name });
  }
  const entry = env.services.get(service);
  if (!entry) throw new M1ndError(ErrorCodes.PLUGIN_SERVICE, `service "${service}" is not provided`, { plugin: def.name });
  return entry.impl as T;
}

/** Re-taps a plugin's scratch taps onto the generation's hooks, stamping errors with the plugin and hook name. */
function commitTaps(plugin: string, scratch: HostHooks, real: HostHooks): void {
  for (const hookName of Object.keys(scratch) as HookName[]) {
    const target = real[hookName] as unknown as {
      tap(o: object, f: Function): void;
      tapAsync(o: object, f: Function): void;
      tapPromise(o: object, f: Function): void;
    };
    for (const tap of (scratch[hookName] as unknown as { taps: { type: string; name: string; fn: Function; stage?: number; before?: string | string[] }[] }).taps) {
      const options = { name: tap.name, stage: tap.stage, before: tap.before };
      const stamp = (error: unknown) => {
        const e = toM1ndError(error, plugin);
        if (!e.message.includes(`[${hookName}]`)) e.message = `${e.message} [${plugin}:${hookName}]`;
        return e;
      };
      // Fixed arity (every hook passes at most two arguments): no rest array per call; a promise tap's
      // errors are stamped on its own promise, without an async wrapper's extra promise and ticks.
      const fn = tap.fn;
      if (tap.type === 'sync') {
        target.tap(options, (a: unknown, b: unknown) => {
          try {
            return fn(a, b);
          } catch (error) {
            throw stamp(error);
          }
        });
      } else if (tap.type === 'promise') {
        const rethrow = (error: unknown) => {
          throw stamp(error);
        };
        target.tapPromise(options, (a: unknown, b: unknown) => {
          let promise: Promise<unknown>;
          try {
            promise = fn(a, b);
          } catch (error) {
            return Promise.reject(stamp(error));
          }
          // A tap that returned a plain value (tolerated by the async wrapper this replaced) still works.
          return promise instanceof Promise ? promise.then(undefined, rethrow) : Promise.resolve(promise);
        });
      } else {
        target.tapAsync(options, tap.fn);
      }
    }
  }
}
