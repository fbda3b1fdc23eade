/**
 * The plugin contract. A plugin is a named object with `apply(ctx)`; it registers verbs, provides
 * and consumes services, and taps hooks, all through its own context.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import type { HostHooks } from './hooks.ts';
import type { Logger } from './log.ts';
import type { SessionStore } from './session.ts';
import type { HostSettings } from './settings.ts';
import type { VerbDefinition } from './verb.ts';
import type { CatalogView } from './catalog.ts';
import type { PromptDefinition, ResourceDefinition } from './resources.ts';
import type { HttpRouteDefinition } from './http-routes.ts';

export interface PluginDefinition<O = Record<string, unknown>> {
  /** kebab-case; the folder name for plugins found on disk. */
  name: string;
  version: string;
  description?: string;
  /** Verb family of this plugin's verbs (default: the plugin name). */
  family?: string;
  /** Supported m1nd core versions, a semver range (default: any). */
  core?: string;
  /** Services this plugin consumes; each must be provided by a plugin that loads before it. */
  requires?: string[];
  /** Services this plugin provides through `ctx.provide`. */
  provides?: string[];
  /**
   * Names of the verbs this plugin registers (optional). When the plugin is quarantined before its
   * `apply` runs (an import, dependency or options failure), a call to one of them is answered with
   * the quarantine's reason instead of "unknown verb".
   */
  verbs?: readonly string[];
  /** TypeBox schema of this plugin's options (the config's `options[<name>]`). */
  options?: TObject;
  apply(ctx: PluginContext<O>): void | Promise<void>;
}

/** What a plugin sees of the host; one context per plugin per generation. */
export interface PluginContext<O = Record<string, unknown>> {
  readonly name: string;
  readonly log: Logger;
  /** This plugin's options, validated against its schema, defaults filled in. */
  readonly options: O;
  readonly settings: Readonly<HostSettings>;
  readonly session: SessionStore;
  /** The hook table; taps are committed only if the plugin loads cleanly. */
  readonly hooks: HostHooks;
  /** The compiled catalog (for host-level plugins such as `help`). */
  readonly catalog: CatalogView;
  /** Registers a verb under this plugin's family. */
  registerVerb(def: VerbDefinition<any>): void;
  /** Provides a service declared in `provides`. */
  provide<T>(service: string, impl: T): void;
  /** A service declared in `requires` (throws for undeclared ones: plugins meet only through services). */
  service<T>(service: string): T;
  /** Registers a readable resource, a fixed URI or a URI template (MCP resources/list, read, subscribe). */
  registerResource(def: ResourceDefinition): void;
  /** Registers a prompt: a message template with arguments (MCP prompts/list, get). */
  registerPrompt(def: PromptDefinition): void;
  /** Tells clients subscribed to this URI that it changed (MCP notifications/resources/updated). */
  resourceUpdated(uri: string): void;
  /**
   * Serves an HTTP route on the Streamable HTTP server's port (core/http-routes.ts), after the same
   * Host/Origin and body checks as /mcp; stdio servers never serve it. Keep the handler's module
   * behind a dynamic import so nothing heavy loads at start-up.
   */
  registerHttpRoute(def: HttpRouteDefinition): void;
}

/** Identity helper that types a plugin definition. */
export function definePlugin<O = Record<string, unknown>>(def: PluginDefinition<O>): PluginDefinition<O> {
  return def;
}

/** Where a plugin definition came from (for errors, health and reload). */
export interface PluginSource {
  definition?: PluginDefinition<any>;
  /** File it was imported from, if any. */
  origin?: string;
  /** Set when importing the module itself failed. */
  importError?: unknown;
  /** Name to report when the module could not be read (folder name). */
  fallbackName?: string;
  /**
   * Set for a plugin compiled into m1nd's bundle, whose verb schemas the build checked
   * (scripts/bundle.mjs): the loader then skips the walk that tells whether each schema compiles.
   */
  builtin?: boolean;
}

export type { TSchema };
