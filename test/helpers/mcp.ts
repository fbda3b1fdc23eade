/** Test harness: a host with the built-in plugins (plus fixtures) and a real SDK Client over InMemoryTransport. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TObject } from '@sinclair/typebox';
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

const checkers = new WeakMap<TObject, TypeCheck<TObject>>();

/**
 * Every call through the harness holds a verb to its output schema: a successful result of a verb
 * declaring one must carry structuredContent that validates (whatever the test itself asserts).
 */
function checkStructured(host: Host, name: string, result: CallToolResult): void {
  const schema = host.current.get(name)?.output;
  if (!schema || result.isError) return;
  if (!result.structuredContent) throw new Error(`${name} declares an output schema but returned no structuredContent`);
  let check = checkers.get(schema);
  if (!check) checkers.set(schema, (check = TypeCompiler.Compile(schema)));
  // As a transport sends it: JSON drops keys holding undefined.
  const sent = JSON.parse(JSON.stringify(result.structuredContent));
  if (!check.Check(sent)) throw new Error(`${name}: structuredContent does not fit its output schema: ${JSON.stringify([...check.Errors(sent)].slice(0, 3).map((e) => ({ path: e.path, message: e.message, value: e.value })))}`);
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
      checkStructured(host, name, result);
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
