/** Test harness: a host with the built-in plugins (plus fixtures) and a real SDK Client over InMemoryTransport. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost, type BootOptions, type Host, type PluginDefinition } from '../../core/index.ts';
import { createLogger } from '../../core/log.ts';
import { activeStoreUrl } from './backends.ts';

export interface Harness {
  client: Client;
  host: Host;
  workspace: string;
  /** Calls a verb and parses its JSON text (error results included). */
  call(name: string, args?: Record<string, unknown>): Promise<{ result: CallToolResult; json: any }>;
  close(): Promise<void>;
}

/** A fresh temp directory (an ES-module package scope, like a modern repository), left to the OS to clean. */
export function tempDir(prefix = 'm1nd-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module","private":true}\n');
  return dir;
}

/** A silent logger that keeps the lines for assertions. */
export function memoryLogger(lines: string[] = []) {
  return createLogger((level, scope, message) => lines.push(`${level} ${scope}: ${message}`));
}

/** Starts a host and connects a Client to it; env defaults to an empty environment (no ambient M1ND_*). */
export async function connect(options: BootOptions & { plugins?: PluginDefinition<any>[] } = {}): Promise<Harness> {
  const workspace = options.workspaceRoot ?? tempDir();
  const host = await startHost({
    ...options,
    workspaceRoot: workspace,
    // Inside describeBackends' PostgreSQL variant, every host points at the test cluster.
    env: { ...(activeStoreUrl() ? { M1ND_STORE_URL: activeStoreUrl() } : {}), ...(options.env ?? {}) },
    extraSources: [...(options.extraSources ?? []), ...(options.plugins ?? []).map((definition) => ({ definition }))],
    log: options.log ?? memoryLogger(),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await host.connect(serverSide);
  const client = new Client({ name: 'm1nd-test', version: '0.0.0' });
  await client.connect(clientSide);
  return {
    client,
    host,
    workspace,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { result, json };
    },
    async close() {
      await client.close();
      await host.close();
    },
  };
}
