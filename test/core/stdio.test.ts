import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers/mcp.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/m1nd.js');

describe('stdio server (spawned bin)', function () {
  this.timeout(30000);

  it('answers initialize, tools/list and a help call', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--workspace', tempDir()],
      env: { PATH: process.env.PATH ?? '', M1ND_FROM_SOURCE: '1', M1ND_TOOL_TIER: 'essential' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion()?.name, 'm1nd');
      assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: true });
      assert.match(client.getInstructions() ?? '', /Tier "essential"/);
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'help'));
      const res = await client.callTool({ name: 'help', arguments: { agent_id: 'stdio', tool_name: 'health' } });
      const json = JSON.parse((res.content as { text: string }[])[0].text);
      assert.equal(json.found, true);
      assert.equal(json.tool_name, 'health');
    } finally {
      await client.close();
    }
  });
});
