import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { McpError, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { definePlugin, Type } from '../../core/index.ts';
import { connect, tempDir, type Harness } from '../helpers/mcp.ts';
import { writeFixtureRepo } from '../helpers/fixture-repo.ts';

/** The text of a resource's first content. */
const textOf = (r: { contents: Record<string, unknown>[] }) => String(r.contents[0].text);

const until = async (check: () => boolean, ms = 3000) => {
  for (let t = 0; t < ms && !check(); t += 25) await new Promise((r) => setTimeout(r, 25));
  return check();
};

const counter = definePlugin({
  name: 'counter-resources',
  version: '0.1.0',
  apply(ctx) {
    let n = 0;
    ctx.registerResource({ uri: 'demo://counter', name: 'counter', description: 'Counts reads', read: () => ({ text: String(++n) }) });
    ctx.registerResource({
      uri: 'demo://files/{+path}',
      name: 'demo-file',
      description: 'A nested path',
      read: ({ path: p }) => (p.startsWith('known/') ? { text: `file ${p}` } : undefined),
      complete: { path: (prefix) => ['known/a.ts', 'known/b.ts', 'other/c.ts'].filter((x) => x.startsWith(prefix)) },
    });
    ctx.registerResource({ uri: 'demo://bump', name: 'bump', read: () => ({ text: 'bump' }) });
    ctx.registerVerb({
      name: 'counter_bump',
      description: 'Tells subscribers demo://bump changed.',
      input: Type.Object({}),
      effect: 'read',
      handler: () => {
        ctx.resourceUpdated('demo://bump');
        return { ok: true };
      },
    });
  },
});

describe('MCP resources, prompts and completions registered by plugins', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir());
    fs.writeFileSync(path.join(ws, 'AGENTS.md'), '# Rules\n\nRun `npm test` before committing.\n');
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' }, plugins: [counter] });
  });
  after(() => h.close());

  it('declares the capabilities and lists fixed resources, listings and templates', async () => {
    const caps = h.client.getServerCapabilities()!;
    assert.deepEqual(caps.resources, { subscribe: true, listChanged: true });
    assert.deepEqual(caps.prompts, { listChanged: true });
    assert.ok(caps.completions);
    const { resources } = await h.client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('m1nd://doctrine') && uris.includes('demo://counter'), uris.join(' '));
    assert.equal(resources.find((r) => r.uri === 'm1nd://doctrine')!.title, 'AGENTS.md');
    const { resourceTemplates } = await h.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(), ['demo://files/{+path}', 'm1nd://team/{namespace}', 'm1nd://trails/{trail_id}', 'm1nd://verbs/{name}']);
  });

  it('reads fixed and templated resources, and answers -32002 for unknown ones', async () => {
    assert.equal(textOf(await h.client.readResource({ uri: 'demo://counter' })), '1');
    assert.equal(textOf(await h.client.readResource({ uri: 'demo://counter' })), '2', 'read runs each time');
    const doc = (await h.client.readResource({ uri: 'm1nd://doctrine' })).contents[0] as Record<string, unknown>;
    assert.deepEqual([doc.uri, doc.mimeType, doc.text], ['m1nd://doctrine', 'text/markdown', '# Rules\n\nRun `npm test` before committing.\n']);
    assert.equal(textOf(await h.client.readResource({ uri: 'demo://files/known/deep/x.ts' })), 'file known/deep/x.ts');
    assert.match(textOf(await h.client.readResource({ uri: 'm1nd://verbs/impact' })), /impact/);
    for (const uri of ['demo://files/unknown.ts', 'm1nd://verbs/no_such_verb', 'nope://x']) {
      await assert.rejects(h.client.readResource({ uri }), (e: McpError) => e.code === -32002, uri);
    }
  });

  it('serves a saved trail as a resource once an agent saves it', async () => {
    await h.call('ingest', { agent_id: 'a', path: ws });
    const saved = (await h.call('trail_save', { agent_id: 'a', label: 'Cart totals', summary: 'where totals come from', visited_nodes: ['function:src/cart.ts#total'] })).json;
    const { resources } = await h.client.listResources();
    const listed = resources.find((r) => r.uri === `m1nd://trails/${saved.trail_id}`);
    assert.equal(listed?.title, 'Cart totals');
    const trail = JSON.parse(textOf(await h.client.readResource({ uri: listed!.uri })));
    assert.equal(trail.summary, 'where totals come from');
    const done = await h.client.complete({ ref: { type: 'ref/resource', uri: 'm1nd://trails/{trail_id}' }, argument: { name: 'trail_id', value: 'trail_cart' } });
    assert.deepEqual(done.completion.values, [saved.trail_id]);
    // A resource request names no agent: a private trail is neither listed nor readable there.
    const secret = (await h.call('trail_save', { agent_id: 'a', label: 'Cart secret', visibility: 'private', visited_nodes: ['function:src/cart.ts#total'] })).json;
    assert.ok(!(await h.client.listResources()).resources.some((r) => r.uri.includes(secret.trail_id)));
    await assert.rejects(h.client.readResource({ uri: `m1nd://trails/${secret.trail_id}` }), (e: McpError) => e.code === -32002);
  });

  it('completes template variables and prompt arguments by prefix', async () => {
    const files = await h.client.complete({ ref: { type: 'ref/resource', uri: 'demo://files/{+path}' }, argument: { name: 'path', value: 'known/' } });
    assert.deepEqual(files.completion.values, ['known/a.ts', 'known/b.ts']);
    const verbs = await h.client.complete({ ref: { type: 'ref/resource', uri: 'm1nd://verbs/{name}' }, argument: { name: 'name', value: 'lock_r' } });
    assert.deepEqual(verbs.completion.values, ['lock_rebase', 'lock_release']);
    const workflows = await h.client.complete({ ref: { type: 'ref/prompt', name: 'workflow' }, argument: { name: 'name', value: 're' } });
    assert.deepEqual(workflows.completion.values, ['recover']);
  });

  it('renders a help workflow as a prompt with the task quoted in, and refuses a missing argument', async () => {
    const { prompts } = await h.client.listPrompts();
    assert.deepEqual(prompts.find((p) => p.name === 'workflow')?.arguments?.map((a) => [a.name, a.required]), [['name', true], ['task', undefined]]);
    const got = await h.client.getPrompt({ name: 'workflow', arguments: { name: 'recover', task: 'ingest failed' } });
    const text = (got.messages[0].content as { text: string }).text;
    assert.match(text, /"recover" workflow for this task: ingest failed/);
    assert.match(text, /1\. `help`.*\n2\. `trust_selftest`/);
    await assert.rejects(h.client.getPrompt({ name: 'workflow', arguments: {} }), /needs argument name/);
    await assert.rejects(h.client.getPrompt({ name: 'workflow', arguments: { name: 'nope' } }), /no workflow "nope".*recover/);
    await assert.rejects(h.client.getPrompt({ name: 'no_prompt' }), /unknown prompt "no_prompt"/);
  });

  it('notifies subscribers when a plugin says a resource changed, and stops after unsubscribe', async () => {
    const updated: string[] = [];
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await h.client.subscribeResource({ uri: 'demo://bump' });
    await h.call('counter_bump');
    assert.ok(await until(() => updated.length === 1), 'one update');
    await h.client.unsubscribeResource({ uri: 'demo://bump' });
    await h.call('counter_bump');
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(updated, ['demo://bump']);
    await assert.rejects(h.client.subscribeResource({ uri: 'demo://nothing' }), (e: McpError) => e.code === -32002);
  });

  it('watches the doctrine file for subscribers: an edit sends resources/updated', async () => {
    const updated: string[] = [];
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await h.client.subscribeResource({ uri: 'm1nd://doctrine' });
    fs.appendFileSync(path.join(ws, 'AGENTS.md'), 'Never push to main.\n');
    assert.ok(await until(() => updated.includes('m1nd://doctrine')), 'doctrine update notified');
    assert.match(textOf(await h.client.readResource({ uri: 'm1nd://doctrine' })), /Never push to main/);
    await h.client.unsubscribeResource({ uri: 'm1nd://doctrine' });
  });
});

describe('resource registration checks', function () {
  this.timeout(30000);
  it('quarantines a plugin registering a URI another plugin has, naming both', async () => {
    const clash = definePlugin({ name: 'clash', version: '0.1.0', apply: (ctx) => ctx.registerResource({ uri: 'm1nd://doctrine', name: 'mine', read: () => ({ text: '' }) }) });
    const h = await connect({ plugins: [clash] });
    try {
      const q = h.host.current.quarantined();
      assert.equal(q.length, 1);
      assert.equal(q[0].code, 'M1ND_ERR_PLUGIN_RESOURCE');
      assert.match(q[0].message, /m1nd:\/\/doctrine is registered by both "host" and "clash"/);
      assert.ok((await h.client.listResources()).resources.every((r) => r.name !== 'mine'));
    } finally {
      await h.close();
    }
  });

  it('tells clients the resource list changed when a reload changes it', async () => {
    let version = 1;
    const plugin = () => definePlugin({ name: 'versioned', version: '0.1.0', apply: (ctx) => ctx.registerResource({ uri: `demo://v${version}`, name: `v${version}`, read: () => ({ text: 'x' }) }) });
    const h = await connect({ plugins: [plugin()] });
    try {
      let changed = 0;
      h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void changed++);
      version = 2;
      (h.host as unknown as { options: { prepare: (id: number) => Promise<{ sources: { definition: unknown }[] }> } }).options.prepare = ((orig) => async (id: number) => {
        const input = await orig(id);
        return { ...input, sources: [...input.sources.filter((s) => (s.definition as { name?: string })?.name !== 'versioned'), { definition: plugin() }] };
      })((h.host as unknown as { options: { prepare: (id: number) => Promise<{ sources: { definition: unknown }[] }> } }).options.prepare);
      assert.equal((await h.host.reload()).ok, true);
      assert.ok(await until(() => changed === 1), 'one resources/list_changed');
      assert.deepEqual((await h.client.listResources()).resources.filter((r) => r.uri.startsWith('demo://')).map((r) => r.uri), ['demo://v2']);
    } finally {
      await h.close();
    }
  });
});
