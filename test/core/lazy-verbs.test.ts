/**
 * Verbs registered with `load` (the handler's module imported on the first call): a plugin on disk
 * whose handler modules record their evaluation on globalThis. Through the SDK client: nothing is
 * imported at start or by tools/list; calls dispatch, validate, gate (read-only, proof) and fail as an
 * eagerly registered twin does; a module that fails to load fails its verb's calls with
 * M1ND_ERR_VERB_LOAD and nothing else; a hot reload serves the edited handler module.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, memoryLogger, tempDir, type Harness } from '../helpers/mcp.ts';
import { watchForReload } from '../../core/dev.ts';
import type { ReloadReport } from '../../core/index.ts';

const CORE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/index.ts');
const g = globalThis as unknown as { lazyImports?: string[] };

/** A handler module: records its evaluation, then answers with its version. */
function handlerModule(name: string, version: number): string {
  return `(globalThis.lazyImports ??= []).push(${JSON.stringify(name)});
export async function handler(args) {
  if (args.fail) throw new Error('handler failed on purpose');
  return { verb: ${JSON.stringify(name)}, version: ${version}, text: args.text ?? null };
}
`;
}

const PLUGIN = `import { AgentId, definePlugin, Type } from ${JSON.stringify(CORE)};
const input = Type.Object({ agent_id: AgentId, text: Type.Optional(Type.String({ maxLength: 10 })), fail: Type.Optional(Type.Boolean()), file_path: Type.Optional(Type.String({ maxLength: 200 })) });
export default definePlugin({
  name: 'lazy',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb({ name: 'lazy_echo', description: 'Echo, loaded on first call.', input, tiers: ['essential'], effect: 'read', load: () => import('./echo.run.ts') });
    ctx.registerVerb({ name: 'eager_echo', description: 'Echo, loaded at start.', input, tiers: ['essential'], effect: 'read', handler: async (a) => { if (a.fail) throw new Error('handler failed on purpose'); return { verb: 'eager_echo', text: a.text ?? null }; } });
    ctx.registerVerb({ name: 'lazy_write', description: 'A proof-gated write, loaded on first call.', input, tiers: ['essential'], effect: 'write', proof: (a) => ({ targets: a.file_path ? [a.file_path] : [] }), load: () => import('./write.run.ts').then((m) => m.default) });
    ctx.registerVerb({ name: 'lazy_broken', description: 'A handler module that throws when evaluated.', input, tiers: ['essential'], effect: 'read', load: () => import('./broken.run.ts') });
    ctx.registerVerb({ name: 'lazy_empty', description: 'A handler module without a handler.', input, tiers: ['essential'], effect: 'read', load: () => import('./empty.run.ts') });
  },
});
`;

function writePlugin(ws: string): string {
  const dir = path.join(ws, 'plugins', 'lazy');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.ts'), PLUGIN);
  fs.writeFileSync(path.join(dir, 'echo.run.ts'), handlerModule('lazy_echo', 1));
  fs.writeFileSync(path.join(dir, 'write.run.ts'), `(globalThis.lazyImports ??= []).push('lazy_write');\nexport default { handler: async (a) => ({ wrote: a.file_path }) };\n`);
  fs.writeFileSync(path.join(dir, 'broken.run.ts'), `(globalThis.lazyImports ??= []).push('lazy_broken');\nthrow new Error('broken on purpose');\n`);
  fs.writeFileSync(path.join(dir, 'empty.run.ts'), `(globalThis.lazyImports ??= []).push('lazy_empty');\nexport const nothing = 1;\n`);
  fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `import { defineConfig } from ${JSON.stringify(CORE)};\nexport default defineConfig({ plugins: { dirs: ['./plugins'] } });\n`);
  return dir;
}

describe('verbs whose handler module loads on the first call (`load`)', function () {
  this.timeout(60_000);

  beforeEach(() => {
    g.lazyImports = [];
  });

  it('imports no handler module at start or for tools/list, and advertises the verbs with their schemas', async () => {
    const ws = tempDir();
    writePlugin(ws);
    const h = await connect({ workspaceRoot: ws });
    try {
      assert.deepEqual(h.host.current.quarantined(), []);
      const tools = (await h.client.listTools()).tools;
      const echo = tools.find((t) => t.name === 'lazy_echo');
      assert.ok(echo, 'lazy_echo is listed');
      assert.deepEqual(Object.keys(echo.inputSchema.properties ?? {}).sort(), ['agent_id', 'fail', 'file_path', 'text']);
      assert.equal(echo.annotations?.readOnlyHint, true);
      await h.call('health', { agent_id: 'a' });
      assert.deepEqual(g.lazyImports, []);
    } finally {
      await h.close();
    }
  });

  it('dispatches, validates and reports handler errors exactly as an eager twin, importing the module once', async () => {
    const ws = tempDir();
    writePlugin(ws);
    const h = await connect({ workspaceRoot: ws });
    try {
      // Invalid arguments are refused before the module is imported, with the eager verb's error.
      const invalid = await h.call('lazy_echo', { agent_id: 'a', text: 'far too long for ten' });
      const invalidEager = await h.call('eager_echo', { agent_id: 'a', text: 'far too long for ten' });
      assert.equal(invalid.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
      assert.deepEqual({ ...invalid.json.error.detail, minimal_call: undefined }, { ...invalidEager.json.error.detail, minimal_call: undefined });
      assert.equal(invalid.json.error.detail.minimal_call, 'lazy_echo({"agent_id":"my-agent"})');
      assert.deepEqual(g.lazyImports, []);
      const first = await h.call('lazy_echo', { agent_id: 'a', text: 'hi' });
      assert.equal(first.result.isError, undefined);
      assert.equal(first.json.verb, 'lazy_echo');
      assert.equal(first.json.text, 'hi');
      const again = await h.call('lazy_echo', { agent_id: 'a', text: 'again' });
      assert.equal(again.json.text, 'again');
      assert.deepEqual(g.lazyImports, ['lazy_echo'], 'imported once, on the first valid call');
      const failed = await h.call('lazy_echo', { agent_id: 'a', fail: true });
      const failedEager = await h.call('eager_echo', { agent_id: 'a', fail: true });
      assert.equal(failed.json.error.code, 'M1ND_ERR_CALL_HANDLER');
      assert.equal(failed.json.error.code, failedEager.json.error.code);
      assert.equal(failed.json.error.message, failedEager.json.error.message);
      // A default export holding { handler } works too.
      assert.equal((await h.call('lazy_write', { agent_id: 'a', file_path: 'x.ts' })).json.wrote, 'x.ts');
    } finally {
      await h.close();
    }
  });

  it('refuses calls at the read-only and proof gates before importing the module', async () => {
    const ws = tempDir();
    writePlugin(ws);
    const ro = await connect({ workspaceRoot: ws, env: { M1ND_READ_ONLY: '1' } });
    try {
      assert.equal((await ro.call('lazy_write', { agent_id: 'a', file_path: 'x.ts' })).json.error.code, 'M1ND_ERR_GATE_READ_ONLY');
      assert.equal((await ro.call('lazy_echo', { agent_id: 'a', text: 'ok' })).json.text, 'ok');
    } finally {
      await ro.close();
    }
    const gated = await connect({ workspaceRoot: ws, env: { M1ND_PROOF_GATE: '1' } });
    try {
      assert.equal((await gated.call('lazy_write', { agent_id: 'a' })).json.error.code, 'M1ND_ERR_GATE_PROOF_UNRESOLVED');
      assert.equal((await gated.call('lazy_write', { agent_id: 'a', file_path: 'src/x.ts' })).json.error.code, 'M1ND_ERR_GATE_PROOF_UNPROVEN');
    } finally {
      await gated.close();
    }
    assert.deepEqual(g.lazyImports, ['lazy_echo'], 'lazy_write was never imported');
  });

  it('fails only the verb whose module cannot load, with M1ND_ERR_VERB_LOAD naming the verb and the module', async () => {
    const ws = tempDir();
    writePlugin(ws);
    const h = await connect({ workspaceRoot: ws });
    try {
      const broken = await h.call('lazy_broken', { agent_id: 'a' });
      assert.equal(broken.result.isError, true);
      assert.equal(broken.json.error.code, 'M1ND_ERR_VERB_LOAD');
      assert.match(broken.json.error.message, /verb "lazy_broken": its handler module \(\.\/broken\.run\.ts\) failed to load: broken on purpose/);
      assert.ok(broken.json.error.hint);
      // A failed import is tried again on the next call (a fixed file would load).
      assert.equal((await h.call('lazy_broken', { agent_id: 'a' })).json.error.code, 'M1ND_ERR_VERB_LOAD');
      const empty = await h.call('lazy_empty', { agent_id: 'a' });
      assert.equal(empty.json.error.code, 'M1ND_ERR_VERB_LOAD');
      assert.match(empty.json.error.message, /\.\/empty\.run\.ts\) has no `handler` or default export/);
      assert.equal((await h.call('lazy_echo', { agent_id: 'a', text: 'fine' })).json.text, 'fine');
      assert.equal((await h.call('health', { agent_id: 'a' })).json.status, 'ok');
    } finally {
      await h.close();
    }
  });

  it('quarantines a plugin whose verb gives both a handler and a load function', async () => {
    const h = await connect({
      plugins: [
        {
          name: 'both',
          version: '1.0.0',
          apply(ctx) {
            ctx.registerVerb({ name: 'both_ways', description: 'Both.', input: { type: 'object', properties: {} } as never, effect: 'read', handler: () => 1, load: async () => () => 2 });
          },
        },
      ],
    });
    try {
      const q = h.host.current.quarantined().find((x) => x.plugin === 'both');
      assert.ok(q, 'plugin "both" is quarantined');
      assert.match(JSON.stringify(q), /gives both `handler` and `load`/);
    } finally {
      await h.close();
    }
  });

  it('serves the edited handler module after a hot reload', async () => {
    const ws = tempDir();
    const dir = writePlugin(ws);
    const h: Harness = await connect({ workspaceRoot: ws });
    const reports: ReloadReport[] = [];
    const watcher = watchForReload(h.host, { log: memoryLogger(), debounceMs: 100, onReload: (r) => reports.push(r) });
    try {
      await watcher.ready;
      assert.equal((await h.call('lazy_echo', { agent_id: 'a' })).json.version, 1);
      fs.writeFileSync(path.join(dir, 'echo.run.ts'), handlerModule('lazy_echo', 2));
      // The handler module is not imported by the plugin's index: a reload is asked for explicitly when
      // the watcher does not see it (dev mode watches the plugin folders).
      for (let i = 0; i < 60 && reports.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      if (reports.length === 0) reports.push(await h.host.reload());
      assert.equal(reports.at(-1)?.ok, true);
      assert.equal((await h.call('lazy_echo', { agent_id: 'a' })).json.version, 2);
      assert.deepEqual(g.lazyImports, ['lazy_echo', 'lazy_echo'], 'the edited module was imported afresh');
    } finally {
      await watcher.close();
      await h.close();
    }
  });
});
