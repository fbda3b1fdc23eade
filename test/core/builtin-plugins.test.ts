import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { AgentId, definePlugin, defineVerb } from '../../core/index.ts';
import { findPluginEntries, generationImporter, importPlugins, registerBuiltinModules } from '../../core/discovery.ts';
import { connect, tempDir } from '../helpers/mcp.ts';

/** A plugin with one verb whose input schema is `input`. */
function pluginWith(name: string, verb: string, input: TSchema) {
  return definePlugin({
    name,
    version: '1.0.0',
    apply(ctx) {
      ctx.registerVerb(defineVerb({ name: verb, description: 'Test verb.', input: input as TObject, tiers: ['essential'], effect: 'read', handler: (a: Record<string, unknown>) => ({ got: a }) }));
    },
  });
}

function write(file: string, text = 'export default {};\n'): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('plugin discovery and built-in plugins', function () {
  it('finds one entry per plugin folder, the first by name, skipping hidden folders, loose files and folders without one', async () => {
    const root = tempDir();
    const a = path.join(root, 'plugins');
    write(path.join(a, 'alpha', 'index.ts'));
    write(path.join(a, 'both', 'index.js'));
    write(path.join(a, 'both', 'index.ts'));
    write(path.join(a, 'mod', 'index.mts'));
    write(path.join(a, '.hidden', 'index.ts'));
    write(path.join(a, 'empty', 'README.md'));
    write(path.join(a, 'loose.ts'));
    fs.mkdirSync(path.join(a, 'folder-index', 'index.ts'), { recursive: true });
    // A linked plugin folder is followed; a broken link is not a plugin.
    write(path.join(root, 'elsewhere', 'index.mjs'));
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(a, 'linked'));
    fs.symlinkSync(path.join(root, 'nowhere'), path.join(a, 'broken'));
    const b = path.join(root, 'more');
    write(path.join(b, 'zeta', 'index.js'));
    const found = await findPluginEntries([b, a, path.join(root, 'missing')]);
    assert.deepEqual(found, [
      path.join(b, 'zeta', 'index.js'),
      path.join(a, 'alpha', 'index.ts'),
      path.join(a, 'both', 'index.js'),
      path.join(a, 'linked', 'index.mjs'),
      path.join(a, 'mod', 'index.mts'),
    ].sort());
  });

  it('marks only modules compiled into the bundle as built-in, unless the build is checking them', async () => {
    const root = tempDir();
    const bundled = path.join(root, 'bundled', 'index.js');
    const outside = path.join(root, 'outside', 'index.js');
    write(bundled, 'throw new Error("the bundled copy is used, not this file");\n');
    write(outside, `export default { name: 'outside', version: '1.0.0', apply() {} };\n`);
    registerBuiltinModules(new Map([[pathToFileURL(bundled), { default: pluginWith('bundled', 'bundled_verb', Type.Object({ agent_id: AgentId })) }]]));
    const importer = generationImporter(1, false);
    const sources = await importPlugins([bundled, outside], importer);
    assert.deepEqual(sources.map((s) => [s.definition?.name, s.builtin ?? false]), [['bundled', true], ['outside', false]]);
    const flag = Symbol.for('m1nd.checkBuiltinSchemas');
    (globalThis as Record<symbol, unknown>)[flag] = true;
    try {
      const checked = await importPlugins([bundled], importer);
      assert.equal(checked[0].builtin, undefined, 'the build loads its built-in plugins with every check');
    } finally {
      delete (globalThis as Record<symbol, unknown>)[flag];
    }
  });

  it('loads a built-in plugin without the compile walk, and a schema that cannot compile still fails its first call with a coded error', async () => {
    const badPattern = Type.Object({ agent_id: AgentId, name: Type.String({ pattern: '([a-z' }) });
    const good = Type.Object({ agent_id: AgentId, count: Type.Integer({ minimum: 1 }) });
    const h = await connect({
      extraSources: [
        { definition: pluginWith('trusted-bad', 'trusted_bad', badPattern), builtin: true },
        { definition: pluginWith('trusted-good', 'trusted_good', good), builtin: true },
        { definition: pluginWith('checked-bad', 'checked_bad', badPattern) },
      ],
    });
    try {
      const quarantined = h.host.current.quarantined().map((q) => q.plugin);
      assert.deepEqual(quarantined, ['checked-bad'], 'a plugin from outside the bundle is still checked at load');
      const bad = await h.call('trusted_bad', { agent_id: 'x', name: 'a' });
      assert.equal(bad.result.isError, true);
      assert.equal(bad.json.error.code, 'M1ND_ERR_VERB_SCHEMA');
      assert.match(bad.json.error.message, /does not compile/);
      const invalid = await h.call('trusted_good', { agent_id: 'x', count: 0 });
      assert.equal(invalid.json.error.code, 'M1ND_ERR_CALL_INVALID_ARGS');
      const ok = await h.call('trusted_good', { agent_id: 'x', count: 2 });
      assert.equal(ok.json.got.count, 2);
      // Snake-case parameter names are still checked for built-ins.
      const h2 = await connect({ extraSources: [{ definition: pluginWith('trusted-camel', 'trusted_camel', Type.Object({ agent_id: AgentId, camelCase: Type.String() })), builtin: true }] });
      try {
        assert.equal(h2.host.current.quarantined()[0]?.code, 'M1ND_ERR_VERB_SCHEMA');
      } finally {
        await h2.close();
      }
    } finally {
      await h.close();
    }
  });
});
