/**
 * Testing plugins the way agents meet them: a host with the given plugins and a real MCP Client
 * over InMemoryTransport. Out-of-tree plugin tests import this file, so they need no SDK install.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost, type BootOptions } from './boot.ts';
import { createLogger } from './log.ts';
import type { Host } from './host.ts';
import type { PluginDefinition } from './plugin.ts';
import type { QuarantineRecord } from './catalog.ts';

export interface InMemoryConnection {
  client: Client;
  host: Host;
  /** Plugins that failed to load (only with `allowQuarantine`; otherwise connecting throws). */
  quarantined: QuarantineRecord[];
  /** Calls a verb; `json` is its parsed text (error results included). */
  call(name: string, args?: Record<string, unknown>): Promise<{ result: CallToolResult; json: any }>;
  close(): Promise<void>;
}

/** Options of connectInMemory. */
export interface ConnectInMemoryOptions {
  /** Also load the built-in families (the `default` bundle: graph, core, memory, ...), e.g. to use the `graph` service. Default false. */
  withDefaults?: boolean;
  /** Environment variables the host reads settings from (M1ND_TOOL_TIER, M1ND_READ_ONLY, ...). Default: none, not process.env. */
  env?: Record<string, string | undefined>;
  /** The workspace root (files, the store under `.m1nd/`). Default: a fresh temp folder. */
  workspaceRoot?: string;
  /** Settings that win over env (`{ readOnly: true }`, `{ requestedTier: 'full' }`, ...). */
  overrides?: BootOptions['overrides'];
  /** Connect even if a plugin is quarantined (to test the quarantine): `quarantined` lists why. Default false: connecting throws with the reason. */
  allowQuarantine?: boolean;
  /** Plugin options by plugin name, as `options` in m1nd.config.ts. */
  pluginOptions?: Record<string, Record<string, unknown>>;
}

/**
 * Starts a host with only `plugins` (plus the built-in families when `withDefaults`) and connects a
 * Client. A plugin that fails to load makes this throw with its reason (the plugin, the check that
 * failed, the error code and message), since a test of a quarantined plugin would otherwise only
 * see "unknown verb"; pass `allowQuarantine: true` to test the quarantine itself.
 */
export async function connectInMemory(plugins: PluginDefinition<any>[], options: ConnectInMemoryOptions = {}): Promise<InMemoryConnection> {
  const host = await startHost({
    workspaceRoot: options.workspaceRoot ?? fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-plugin-test-')),
    env: options.env ?? {},
    config: { bundles: options.withDefaults ? ['default'] : [], options: options.pluginOptions },
    extraSources: plugins.map((definition) => ({ definition })),
    overrides: options.overrides,
    log: createLogger(() => {}),
  });
  const quarantined = host.current.quarantined();
  if (quarantined.length > 0 && !options.allowQuarantine) {
    await host.close();
    throw new Error(`plugin${quarantined.length > 1 ? 's' : ''} quarantined: ${quarantined.map((q) => `${q.plugin} at ${q.check} (${q.code}): ${q.message}`).join('; ')}`);
  }
  // The SDK's client is imported here, not by the bundle's start-up (this module is part of the public API).
  const [{ Client }, { InMemoryTransport }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/inMemory.js')]);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await host.connect(serverSide);
  const client = new Client({ name: 'm1nd-plugin-test', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    host,
    quarantined,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
      let json: any = text;
      try {
        json = JSON.parse(text);
      } catch {
        // a plain-text result stays a string
      }
      return { result, json };
    },
    async close() {
      await client.close();
      await host.close();
    },
  };
}
