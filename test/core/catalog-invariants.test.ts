import assert from 'node:assert/strict';
import { connect, type Harness } from '../helpers/mcp.ts';
import { recorderPlugin } from '../fixtures/plugins/recorder/index.ts';
import { countTokens, minimalArguments } from '../../core/index.ts';

const UNKNOWN = 'M1ND_ERR_CALL_UNKNOWN_VERB';

for (const tier of ['essential', 'full']) {
  for (const readOnly of [false, true]) {
    describe(`catalog surface in tier ${tier}, read-only ${readOnly ? 'on' : 'off'}`, function () {
      let h: Harness;
      before(async () => {
        h = await connect({ env: { M1ND_TOOL_TIER: tier, M1ND_READ_ONLY: readOnly ? '1' : '0' }, plugins: [recorderPlugin().plugin] });
      });
      after(() => h.close());

      it('advertises only registered verbs', async () => {
        const { tools } = await h.client.listTools();
        const registry = new Set(h.host.current.records().map((r) => r.name));
        for (const t of tools) assert.ok(registry.has(t.name), `${t.name} advertised but not registered`);
      });

      it('dispatches every registered verb, advertised or not', async () => {
        const { tools } = await h.client.listTools();
        const advertised = new Set(tools.map((t) => t.name));
        let unadvertised = 0;
        for (const verb of h.host.current.records()) {
          if (!advertised.has(verb.name)) unadvertised++;
          const { json } = await h.call(verb.name, minimalArguments(verb.input));
          assert.notEqual(json?.error?.code, UNKNOWN, `${verb.name} was not dispatchable`);
          // The minimal call an argument error suggests passes the schema itself.
          assert.equal(json?.error?.detail?.minimal_call, undefined, `${verb.name}: its minimal call fails its own schema: ${JSON.stringify(json?.error)}`);
        }
        assert.ok(unadvertised > 0, 'the fixture includes verbs this surface does not advertise');
      });

      it('reports health counts equal to the live registry and tools/list', async () => {
        const { tools } = await h.client.listTools();
        const { json } = await h.call('health', { agent_id: 't' });
        assert.equal(json.counts.registry, h.host.current.records().length);
        assert.equal(json.counts.advertised, tools.length);
        assert.equal(json.tool_surface_contract.full_registry_tool_count, json.counts.registry);
        assert.equal(json.tool_surface_contract.advertised_tool_count, tools.length);
        assert.equal(json.tool_tier.served, tier);
      });

      it('derives MCP annotations from each verb effect (its strongest case when it depends on the arguments), with a title', async () => {
        const { tools } = await h.client.listTools();
        for (const t of tools) {
          const verb = h.host.current.get(t.name)!;
          const strongest = typeof verb.effect === 'string' ? verb.effect : verb.maxEffect ?? 'destructive';
          assert.equal(t.annotations?.readOnlyHint, strongest === 'read', t.name);
          // MCP reads a missing destructiveHint on a non-read-only tool as destructive: it must be explicit.
          if (strongest !== 'read') assert.equal(t.annotations?.destructiveHint, strongest === 'destructive', t.name);
          // Its default is true (open world); m1nd's verbs stay within the workspace.
          assert.equal(t.annotations?.openWorldHint, verb.openWorld ?? false, t.name);
          assert.ok(t.annotations?.title && t.annotations.title.length <= 40, t.name);
        }
        // Verbs that can replace or drop state with some arguments say so (persist load, ingest replace, deletes).
        for (const name of ['ingest', 'persist', 'lock_release', 'boot_memory', 'antibody_create', 'apply', 'apply_batch', 'edit_commit', 'xray_apply']) {
          const t = tools.find((x) => x.name === name);
          if (t) assert.equal(t.annotations?.destructiveHint, true, name);
        }
      });

      it('knows every callable verb in help', async () => {
        for (const verb of h.host.current.records()) {
          const { json } = await h.call('help', { agent_id: 't', tool_name: verb.name, render: 'none' });
          assert.equal(json.found, true, verb.name);
          assert.equal(json.callable, true);
        }
      });
    });
  }
}

describe('advertised schema cost', function () {
  it('keeps the essential tier\'s whole tools/list under 6000 BPE tokens', async () => {
    const h = await connect({ env: { M1ND_TOOL_TIER: 'essential' } });
    try {
      const { tools } = await h.client.listTools();
      const tokens = countTokens(JSON.stringify({ tools }));
      assert.ok(tokens < 6000, `essential tools/list is ${tokens} tokens for ${tools.length} verbs`);
    } finally {
      await h.close();
    }
  });
});

describe('tier selection', function () {
  it('advertises exactly the essential set for M1ND_TOOL_TIER=nonsense and says so in health', async () => {
    const essential = await connect({ env: { M1ND_TOOL_TIER: 'essential' }, plugins: [recorderPlugin().plugin] });
    const nonsense = await connect({ env: { M1ND_TOOL_TIER: 'nonsense' }, plugins: [recorderPlugin().plugin] });
    try {
      const a = (await essential.client.listTools()).tools.map((t) => t.name).sort();
      const b = (await nonsense.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(b, a);
      const { json } = await nonsense.call('health', { agent_id: 't' });
      assert.equal(json.tool_tier.served, 'essential');
      assert.equal(json.tool_tier.requested, 'nonsense');
      assert.equal(json.tool_tier.unknown_requested, true);
    } finally {
      await essential.close();
      await nonsense.close();
    }
  });

  it('matches the tier name case-insensitively', async () => {
    const h = await connect({ env: { M1ND_TOOL_TIER: 'FULL' }, plugins: [recorderPlugin().plugin] });
    try {
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('rec_write'));
      assert.ok(!names.includes('rec_secret_hidden'), 'a back-compat verb is never advertised');
    } finally {
      await h.close();
    }
  });

  it('defaults to the essential tier when none is requested', async () => {
    const h = await connect({ plugins: [recorderPlugin().plugin] });
    try {
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('rec_read') && !names.includes('rec_write'));
    } finally {
      await h.close();
    }
  });
});
