/** MCP sessions over the HTTP transport through a real SDK client, for identity and token tests. */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startHost, type Host } from '../../core/index.ts';
import { memoryLogger, tempDir } from './mcp.ts';
import { writeFixtureRepo } from './fixture-repo.ts';
import { ANALYSIS_FILES } from '../plugins/core/analysis/analysis-fixture.ts';

/** One MCP session over HTTP: a real SDK client, its session id and a JSON-parsing call. */
export interface HttpSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
  call(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** Opens an MCP session on `url`, sending `token` as a bearer token when given. */
export async function openSession(url: string, token?: string): Promise<HttpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined);
  const client = new Client({ name: 'm1nd-identity-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    transport,
    async call(name, args) {
      const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
      return JSON.parse(r.content[0]?.type === 'text' ? r.content[0].text : 'null');
    },
    close: () => client.close(),
  };
}

/** A host on the ingested analysis fixture (full tier). */
export async function fixtureHost(): Promise<Host> {
  const ws = writeFixtureRepo(tempDir('m1nd-identity-'), ANALYSIS_FILES);
  const host = await startHost({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, log: memoryLogger() });
  const r = await host.call('ingest', { agent_id: 'setup', path: ws });
  assert.ok(!r.isError, 'fixture ingested');
  return host;
}

