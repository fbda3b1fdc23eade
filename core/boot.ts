/**
 * Preparing a generation from the configuration: settings (defaults < config < env < flags),
 * enabled bundles, plugin folders and packages, tier curation and plugin options. Everything is
 * re-read for each generation, so a hot reload sees edited config, bundles and plugins.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Host, type GenerationInput } from './host.ts';
import { applyEnv, defaultSettings, type HostSettings } from './settings.ts';
import { findPluginEntries, generationImporter, importPlugins, resolvePackages } from './discovery.ts';
import { configInputs } from './config-import.ts';
import { BundleSchema, findConfigFile, loadConfigFile, validateShape, type BundleDefinition, type M1ndConfig } from './config.ts';
import { ErrorCodes, M1ndError } from './errors.ts';
import type { Logger } from './log.ts';
import { suggestNames } from './suggest.ts';
import type { PluginSource } from './plugin.ts';
import type { TierCuration } from './tiers.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's own `plugins/` folder (the built-in families, shipped by the default bundle). */
export const BUILTIN_PLUGIN_DIR = path.join(REPO_ROOT, 'plugins');
/** Where named bundles shipped with m1nd live. */
export const BUILTIN_BUNDLE_DIR = path.join(REPO_ROOT, 'bundles');

export interface BootOptions {
  workspaceRoot?: string;
  /** `--config PATH`; otherwise `m1nd.config.ts` in the workspace, if any. */
  configPath?: string;
  /** Use no config file even if the workspace has one (tests, embedders). */
  noConfig?: boolean;
  /** Config given in code, used instead of a file. */
  config?: M1ndConfig;
  /** Extra plugin definitions given in code (tests, embedders). */
  extraSources?: PluginSource[];
  /** Environment variables to read settings from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Settings that win over everything (CLI flags). */
  overrides?: Partial<HostSettings>;
  log?: Logger;
  /**
   * Import plugins, bundles and the config in a module namespace private to each generation, so a
   * reload sees edited files (default true). A server that never reloads passes false: no module
   * hooks are registered, and imports are faster.
   */
  freshImports?: boolean;
}

export interface PreparedGeneration extends GenerationInput {
  /** Files and folders whose change should trigger a reload (dev mode). */
  watchPaths: string[];
  configFile?: string;
  bundles: string[];
  /** The config's `http` section (the CLI's HTTP transport reads it). */
  http: NonNullable<M1ndConfig['http']>;
}

function mergeCuration(into: Record<string, TierCuration>, from: Record<string, TierCuration> | undefined): void {
  for (const [tier, c] of Object.entries(from ?? {})) {
    const prev = into[tier];
    into[tier] = prev
      ? { extends: c.extends ?? prev.extends, add: [...(prev.add ?? []), ...(c.add ?? [])], remove: [...(prev.remove ?? []), ...(c.remove ?? [])], description: c.description ?? prev.description }
      : { ...c };
  }
}

async function resolveBundle(
  ref: string,
  baseDir: string,
  bundleDirs: string[],
  importer: (file: string) => Promise<Record<string, unknown>>,
): Promise<{ bundle: BundleDefinition; dir: string }> {
  let entry: string | undefined;
  if (ref.startsWith('.') || path.isAbsolute(ref)) {
    entry = findEntry(path.resolve(baseDir, ref));
  } else {
    for (const d of bundleDirs) entry ??= findEntry(path.join(d, ref));
    entry ??= resolvePackages([ref], baseDir)[0].file;
  }
  if (!entry) {
    throw new M1ndError(ErrorCodes.CONFIG_INVALID, `bundle "${ref}" not found in ${bundleDirs.join(', ')} nor as an npm package`, {
      hint: `enable one of: ${listBundles(bundleDirs).join(', ') || '(none)'}`,
    });
  }
  const mod = await importer(entry);
  const bundle = validateShape<BundleDefinition>(BundleSchema, mod.default ?? mod.bundle, entry, 'bundle');
  return { bundle, dir: path.dirname(entry) };
}

function findEntry(dir: string): string | undefined {
  for (const name of ['index.ts', 'index.mts', 'index.js', 'index.mjs']) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/** Names of the bundles found in bundle folders. */
export function listBundles(bundleDirs: string[]): string[] {
  return bundleDirs.flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d).filter((n) => findEntry(path.join(d, n))) : []));
}

/** Reads config, bundles and plugins for generation `id`. Throws M1ndError on a bad config. */
export async function prepareGeneration(id: number, o: BootOptions): Promise<PreparedGeneration> {
  const env = o.env ?? process.env;
  const importer = generationImporter(id, o.freshImports ?? true);
  const cwdRoot = path.resolve(o.workspaceRoot ?? env.M1ND_WORKSPACE ?? process.cwd());
  const configFile = o.noConfig || o.config ? undefined : o.configPath ? path.resolve(o.configPath) : findConfigFile(cwdRoot);
  if (o.configPath && !fs.existsSync(path.resolve(o.configPath))) {
    throw new M1ndError(ErrorCodes.CONFIG_LOAD, `config file ${path.resolve(o.configPath)} does not exist`, { hint: 'pass --config with an existing file, or omit it' });
  }
  const config: M1ndConfig = o.config ?? (configFile ? await loadConfigFile(configFile) : {});
  const baseDir = configFile ? path.dirname(configFile) : cwdRoot;
  const workspace = o.workspaceRoot ?? env.M1ND_WORKSPACE ?? (config.workspace ? path.resolve(baseDir, config.workspace) : cwdRoot);

  let settings: HostSettings = defaultSettings(workspace);
  const g = config.gates ?? {};
  settings = {
    ...settings,
    readOnly: g.readOnly ?? settings.readOnly,
    proofGate: g.proofGate ?? settings.proofGate,
    resultTokenLimit: g.resultTokenLimit ?? settings.resultTokenLimit,
    handlerTimeoutMs: g.handlerTimeoutMs ?? settings.handlerTimeoutMs,
    envelope: g.envelope ?? settings.envelope,
    storeDir: config.storage?.dir ? path.resolve(baseDir, config.storage.dir) : settings.storeDir,
    ...(config.storage?.url ? { storeUrl: config.storage.url } : {}),
    ...(config.storage?.tls ? { storeTls: config.storage.tls } : {}),
    ...(config.storage?.repository ? { repositoryId: config.storage.repository } : {}),
    allowRoots: (config.allowRoots ?? []).map((d) => path.resolve(baseDir, d)),
  };
  settings = { ...applyEnv(settings, { ...env, M1ND_WORKSPACE: undefined }), ...o.overrides };

  const bundleDirs = [...(config.bundleDirs ?? []).map((d) => path.resolve(baseDir, d)), BUILTIN_BUNDLE_DIR];
  const tierCuration: Record<string, TierCuration> = {};
  const pluginDirs: string[] = [];
  const packages: string[] = [];
  // The config and the files it imports (a shared helper, a tiers file): an edit to any reloads.
  const watchPaths: string[] = configFile ? configInputs(configFile) : [];
  let defaultTier: string | undefined;
  const bundleNames: string[] = [];
  for (const ref of config.bundles ?? ['default']) {
    const { bundle, dir } = await resolveBundle(ref, baseDir, bundleDirs, importer);
    bundleNames.push(bundle.name);
    watchPaths.push(dir);
    pluginDirs.push(...(bundle.plugins?.dirs ?? []).map((d) => path.resolve(dir, d)));
    packages.push(...(bundle.plugins?.packages ?? []));
    mergeCuration(tierCuration, bundle.tiers);
    defaultTier = bundle.tier ?? defaultTier;
  }
  pluginDirs.push(...(config.plugins?.dirs ?? []).map((d) => path.resolve(baseDir, d)));
  packages.push(...(config.plugins?.packages ?? []));
  mergeCuration(tierCuration, config.tiers);
  defaultTier = config.tier ?? defaultTier;
  const dirs = [...new Set(pluginDirs)];
  watchPaths.push(...dirs);

  const files = await findPluginEntries(dirs);
  const sources = await importPlugins(files, importer);
  for (const p of resolvePackages([...new Set(packages)], baseDir)) {
    if (p.file) sources.push(...(await importPlugins([p.file], importer)).map((s) => ({ ...s, fallbackName: p.name })));
    else sources.push({ fallbackName: p.name, origin: p.name, importError: new Error(`npm package "${p.name}" is not installed in ${baseDir}`) });
  }
  const disabled = new Set(config.plugins?.disable ?? []);
  const kept = sources.filter((s) => !s.definition || !disabled.has(s.definition.name));
  warnUnknownPlugins(config, [...sources, ...(o.extraSources ?? [])], configFile, o.log);
  for (const d of config.plugins?.dirs ?? []) {
    if (!fs.existsSync(path.resolve(baseDir, d))) o.log?.warn(`${configFile ?? 'the config'}: plugins.dirs names ${d}, which does not exist (${path.resolve(baseDir, d)}); no plugin loads from it`);
  }
  return {
    sources: [...kept, ...(o.extraSources ?? [])],
    settings,
    tierCuration,
    defaultTier,
    pluginOptions: config.options ?? {},
    watchPaths: [...new Set(watchPaths)],
    configFile,
    bundles: bundleNames,
    http: config.http ?? {},
  };
}

/** A config naming a plugin no source defines (a typo, a removed plugin) gets one warning per name, with the closest name. */
function warnUnknownPlugins(config: M1ndConfig, sources: PluginSource[], configFile: string | undefined, log: Logger | undefined): void {
  if (!log) return;
  const names = new Set(sources.map((s) => s.definition?.name ?? s.fallbackName).filter((n): n is string => n !== undefined));
  const where = configFile ?? 'the config';
  const closest = (name: string) => {
    const near = suggestNames(name, names, 1);
    return near.length ? `; did you mean "${near[0]}"?` : `; loaded plugins: ${[...names].sort().join(', ') || '(none)'}`;
  };
  for (const name of Object.keys(config.options ?? {})) {
    if (!names.has(name)) log.warn(`${where}: options for plugin "${name}", which is not loaded, are ignored${closest(name)}`);
  }
  for (const name of config.plugins?.disable ?? []) {
    if (!names.has(name)) log.warn(`${where}: plugins.disable names plugin "${name}", which is not loaded${closest(name)}`);
  }
}

/** Starts a host from the configuration (or the options given in code). */
export function startHost(o: BootOptions = {}): Promise<Host> {
  return Host.start({ prepare: (id) => prepareGeneration(id, o), log: o.log });
}
