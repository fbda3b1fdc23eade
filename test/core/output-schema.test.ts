import assert from 'node:assert/strict';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AgentId, definePlugin, defineVerb, minimalArguments, Type } from '../../core/index.ts';
import { advertisedOutput } from '../../core/catalog.ts';
import { connect, tempDir, type Harness } from '../helpers/mcp.ts';
import { writeFixtureRepo } from '../helpers/fixture-repo.ts';

describe('output schemas and structured results', function () {
  let h: Harness;
  before(async () => {
    h = await connect({ workspaceRoot: writeFixtureRepo(tempDir()), env: { M1ND_TOOL_TIER: 'full' } });
    const { json } = await h.call('ingest', { agent_id: 'schema-test', path: '.' });
    assert.ok(!json.error, JSON.stringify(json).slice(0, 300));
  });
  after(() => h.close());

  it('advertises each declared output schema in tools/list, and returns structuredContent that validates against it and equals the text, for every verb declaring one', async () => {
    const { tools } = await h.client.listTools();
    const advertised = new Map(tools.map((t) => [t.name, t]));
    // Every verb is called in output-schema-verbs.test.ts; here the ones whose minimal call succeeds.
    const names = ['health', 'help', 'doctor', 'session_handshake', 'metrics', 'trail_list', 'coverage_session'];
    const declaring = h.host.current.records().filter((v) => v.output && names.includes(v.name));
    assert.equal(declaring.length, names.length, 'each declares an output schema');
    for (const verb of declaring) {
      const tool = advertised.get(verb.name);
      if (tool) assert.deepEqual(tool.outputSchema, advertisedOutput(verb), `${verb.name}: tools/list carries its output schema`);
      // The SDK client validates structuredContent against the advertised schema too (it listed the tools above).
      const { result, json } = await h.call(verb.name, { ...minimalArguments(verb.input), agent_id: 'schema-test' });
      assert.ok(!result.isError, `${verb.name} failed: ${JSON.stringify(json).slice(0, 300)}`);
      assert.ok(result.structuredContent, `${verb.name} returns structuredContent`);
      const check = TypeCompiler.Compile(verb.output!);
      assert.ok(check.Check(result.structuredContent), `${verb.name}: ${JSON.stringify([...check.Errors(result.structuredContent)].slice(0, 3))}`);
      // As a transport sends it (in memory, keys holding undefined are still there; JSON drops them).
      assert.deepEqual(JSON.parse(JSON.stringify(result.structuredContent)), json, `${verb.name}: the text and the structured result say the same`);
    }
  });

  it('leaves output schemas out of the essential tier\'s tools/list, unless its curation asks, while results carry structuredContent in every tier', async () => {
    const essential = await connect({ workspaceRoot: h.workspace, env: { M1ND_TOOL_TIER: 'essential' } });
    const curated = await connect({ workspaceRoot: h.workspace, env: { M1ND_TOOL_TIER: 'essential' }, config: { tiers: { essential: { outputSchemas: true } } } });
    try {
      const lean = (await essential.client.listTools()).tools;
      assert.ok(lean.length > 10);
      assert.deepEqual(lean.filter((t) => t.outputSchema).map((t) => t.name), []);
      const { result } = await essential.call('health', { agent_id: 'schema-test' });
      assert.ok(result.structuredContent, 'structuredContent without an advertised schema');
      const rich = (await curated.client.listTools()).tools;
      assert.equal(rich.filter((t) => t.outputSchema).length, rich.length, 'every essential verb has a schema to advertise');
      const full = (await h.client.listTools()).tools;
      assert.ok(full.filter((t) => t.outputSchema).length > 90);
    } finally {
      await essential.close();
      await curated.close();
    }
  });

  it('keeps a structured result valid when the token limit cuts it', async () => {
    const small = await connect({ workspaceRoot: h.workspace, env: { M1ND_TOOL_TIER: 'full', M1ND_RESULT_TOKEN_LIMIT: '300' } });
    try {
      await small.client.listTools();
      const { result, json } = await small.call('metrics', { agent_id: 'schema-test', node_types: ['file', 'function', 'class', 'method'], top_k: 200 });
      assert.ok(!result.isError, JSON.stringify(json).slice(0, 300));
      assert.equal(json._m1nd.truncated, true);
      const check = TypeCompiler.Compile(small.host.current.get('metrics')!.output!);
      assert.ok(check.Check(result.structuredContent));
      assert.deepEqual(JSON.parse(JSON.stringify(result.structuredContent)), json);
    } finally {
      await small.close();
    }
  });

  it('refuses, with a hint, a result that cannot be cut to the limit and still fit its schema, instead of sending structured content a client would reject', async () => {
    const rigid = definePlugin({
      name: 'rigid',
      version: '1.0.0',
      apply(ctx) {
        ctx.registerVerb(
          defineVerb({
            name: 'rigid_list',
            description: 'A list of at least 20 items.',
            input: Type.Object({ agent_id: AgentId }),
            output: Type.Object({ items: Type.Array(Type.String(), { minItems: 20 }) }),
            tiers: ['full'],
            effect: 'read',
            handler: () => ({ items: Array.from({ length: 400 }, (_, i) => `item ${i} with a few more words in it`) }),
          }),
        );
      },
    });
    const small = await connect({ env: { M1ND_TOOL_TIER: 'full', M1ND_RESULT_TOKEN_LIMIT: '200' }, plugins: [rigid] });
    try {
      await small.client.listTools();
      const { result, json } = await small.call('rigid_list', { agent_id: 'a' });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      assert.equal(json.error.code, 'M1ND_ERR_CALL_RESULT_TOO_LARGE');
      assert.match(json.error.hint, /M1ND_RESULT_TOKEN_LIMIT/);
    } finally {
      await small.close();
    }
  });
});
