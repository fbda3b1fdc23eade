/**
 * Starting a host from a workspace: the built-in plugin folder plus extra folders, settings from
 * defaults, environment and flags. The configuration file layer sits on top of this (config.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Host, type GenerationInput } from './host.ts';
import { applyEnv, defaultSettings, type HostSettings } from './settings.ts';
import { findPluginEntries, generationImporter, importPlugins } from './discovery.ts';
import type { Logger } from './log.ts';
import type { PluginSource } from './plugin.ts';
import type { TierCuration } from './tiers.ts';

/** The repository's own `plugins/` folder (the built-in families). */
export const BUILTIN_PLUGIN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'plugins');

export interface BootOptions {
  workspaceRoot?: string;
  /** Plugin folders to scan (default: the built-in plugins folder). */
  pluginDirs?: string[];
  /** Extra plugin definitions given in code (tests, embedders). */
  extraSources?: PluginSource[];
  env?: NodeJS.ProcessEnv;
  /** Settings that win over everything (CLI flags). */
  overrides?: Partial<HostSettings>;
  tierCuration?: Record<string, TierCuration>;
  defaultTier?: string;
  pluginOptions?: Record<string, unknown>;
  log?: Logger;
}

/** Prepares one generation's input by scanning the plugin folders afresh. */
export async function prepareFromOptions(id: number, o: BootOptions): Promise<GenerationInput> {
  const env = o.env ?? process.env;
  let settings = applyEnv(defaultSettings(o.workspaceRoot ?? env.M1ND_WORKSPACE ?? process.cwd()), env);
  settings = { ...settings, ...o.overrides };
  const files = await findPluginEntries(o.pluginDirs ?? [BUILTIN_PLUGIN_DIR]);
  const sources = [...(await importPlugins(files, generationImporter(id))), ...(o.extraSources ?? [])];
  return { sources, settings, tierCuration: o.tierCuration, defaultTier: o.defaultTier, pluginOptions: o.pluginOptions };
}

/** Starts a host over plugin folders and in-code plugins. */
export function startHost(o: BootOptions = {}): Promise<Host> {
  return Host.start({ prepare: (id) => prepareFromOptions(id, o), log: o.log });
}
