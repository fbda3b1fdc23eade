import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect, tempDir } from '../helpers/mcp.ts';
import { startHost } from '../../core/index.ts';
import { memoryLogger } from '../helpers/mcp.ts';

const CORE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../core/index.ts');

function writeConfig(dir: string, body: string): string {
  const file = path.join(dir, 'm1nd.config.ts');
  fs.writeFileSync(file, `import { defineConfig } from ${JSON.stringify(CORE)};\nexport default defineConfig(${body});\n`);
  return file;
}

function writePlugin(dir: string, name: string, verbs: string[], tiers = "['full']"): void {
  fs.mkdirSync(path.join(dir, name), { recursive: true });
  const regs = verbs
    .map((v) => `ctx.registerVerb({ name: '${v}', description: 'Verb ${v}.', input: Type.Object({ agent_id: AgentId }), tiers: ${tiers}, effect: 'read', handler: () => ({ verb: '${v}', greeting: ctx.options.greeting ?? null }) });`)
    .join('\n    ');
  fs.writeFileSync(
    path.join(dir, name, 'index.ts'),
    `import { AgentId, definePlugin, Type } from ${JSON.stringify(CORE)};\nexport default definePlugin({\n  name: '${name}',\n  version: '1.0.0',\n  options: Type.Object({ greeting: Type.String({ default: 'hello' }) }),\n  apply(ctx: any) {\n    ${regs}\n  },\n});\n`,
  );
}

describe('configuration file', function () {
  it('loads a valid config: plugin folders, per-plugin options, default tier', async () => {
    const ws = tempDir();
    writePlugin(path.join(ws, 'my-plugins'), 'greeter', ['greet'], "['essential']");
    writeConfig(ws, `{ bundles: ['default'], plugins: { dirs: ['./my-plugins'] }, options: { greeter: { greeting: 'hej' } }, tier: 'full' }`);
    const h = await connect({ workspaceRoot: ws });
    try {
      assert.equal((await h.call('greet', { agent_id: 'a' })).json.greeting, 'hej');
      const health = await h.call('health', { agent_id: 'a' });
      assert.equal(health.json.tool_tier.served, 'full');
    } finally {
      await h.close();
    }
  });

  it('stops start-up on an invalid config with a message naming the key, the expected shape and the file', async () => {
    const ws = tempDir();
    const file = writeConfig(ws, `{ gates: { resultTokenLimit: 'lots' } } as any`);
    await assert.rejects(startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'M1ND_ERR_CONFIG_INVALID');
      assert.match(e.message, /gates\.resultTokenLimit/);
      assert.match(e.message, /integer/);
      assert.ok(e.message.includes(file));
      return true;
    });
    writeConfig(ws, `{ tierz: {} } as any`);
    await assert.rejects(startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() }), /unknown config key "tierz"/);
  });

  it('lets environment variables override the file, and --config pick another file', async () => {
    const ws = tempDir();
    writeConfig(ws, `{ tier: 'full', gates: { readOnly: false } }`);
    const other = path.join(tempDir(), 'other.config.ts');
    fs.writeFileSync(other, `export default { gates: { readOnly: true } };\n`);
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'essential', M1ND_READ_ONLY: '1' } });
    const h2 = await connect({ workspaceRoot: ws, configPath: other });
    try {
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(health.tool_tier.served, 'essential');
      assert.equal(health.read_only, true);
      assert.equal((await h2.call('health', { agent_id: 'a' })).json.read_only, true);
    } finally {
      await h.close();
      await h2.close();
    }
  });

  it('defines a named tier that advertises a curated set', async () => {
    const ws = tempDir();
    writeConfig(ws, `{ tiers: { triage: { extends: 'essential', add: [], remove: ['session_handshake', 'doctor'] } }, tier: 'triage' }`);
    const h = await connect({ workspaceRoot: ws });
    try {
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('doctor') && !names.includes('session_handshake'));
      assert.ok(names.includes('help'));
      assert.equal((await h.call('doctor', { agent_id: 'a' })).result.isError, undefined, 'curated out of the tier, still callable');
    } finally {
      await h.close();
    }
  });

  it('lets an enabled bundle change what a tier advertises', async () => {
    const ws = tempDir();
    const bundleDir = path.join(ws, 'bundles', 'audit');
    writePlugin(path.join(bundleDir, 'plugins'), 'auditor', ['audit_trail', 'audit_sum']);
    fs.writeFileSync(
      path.join(bundleDir, 'index.ts'),
      `import { defineBundle } from ${JSON.stringify(CORE)};\nexport default defineBundle({ name: 'audit', plugins: { dirs: ['./plugins'] }, tiers: { essential: { add: ['audit_trail'] } } });\n`,
    );
    writeConfig(ws, `{ bundles: ['default', './bundles/audit'] }`);
    const h = await connect({ workspaceRoot: ws });
    const plain = await connect({ workspaceRoot: tempDir() });
    try {
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('audit_trail'), 'the bundle curated audit_trail into essential');
      assert.ok(!names.includes('audit_sum'));
      const plainNames = (await plain.client.listTools()).tools.map((t) => t.name);
      assert.ok(!plainNames.includes('audit_trail'));
    } finally {
      await h.close();
      await plain.close();
    }
  });

  it('loads plugins and bundles shipped as npm packages', async () => {
    const ws = tempDir();
    const pkg = (name: string, index: string) => {
      const dir = path.join(ws, 'node_modules', name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', exports: './index.ts' }));
      fs.writeFileSync(path.join(dir, 'index.ts'), index);
      return dir;
    };
    pkg('m1nd-plugin-echo', `import { AgentId, definePlugin, Type } from ${JSON.stringify(CORE)};
export default definePlugin({ name: 'echo', version: '1.0.0', apply(ctx) {
  ctx.registerVerb({ name: 'echo_back', description: 'Echo.', input: Type.Object({ agent_id: AgentId, text: Type.String() }), effect: 'read', handler: (a: { text: string }) => ({ text: a.text }) });
} });
`);
    pkg('m1nd-bundle-echo', `import { defineBundle } from ${JSON.stringify(CORE)};
export default defineBundle({ name: 'echo-bundle', plugins: { packages: ['m1nd-plugin-echo'] }, tiers: { essential: { add: ['echo_back'] } } });
`);
    writeConfig(ws, `{ bundles: ['default', 'm1nd-bundle-echo'], plugins: { packages: ['m1nd-plugin-missing'] } }`);
    const h = await connect({ workspaceRoot: ws });
    try {
      assert.equal((await h.call('echo_back', { agent_id: 'a', text: 'hi' })).json.text, 'hi');
      assert.ok((await h.client.listTools()).tools.some((t) => t.name === 'echo_back'), 'the bundle curated it into essential');
      const q = h.host.current.quarantined();
      assert.equal(q.length, 1);
      assert.equal(q[0].code, 'M1ND_ERR_PLUGIN_IMPORT');
      assert.match(q[0].message, /m1nd-plugin-missing/);
    } finally {
      await h.close();
    }
  });

  it('ships the review bundle, which makes a reviewer tier the default', async () => {
    const ws = tempDir();
    writeConfig(ws, `{ bundles: ['default', 'review'] }`);
    const h = await connect({ workspaceRoot: ws });
    try {
      const health = (await h.call('health', { agent_id: 'a' })).json;
      assert.equal(health.tool_tier.served, 'review');
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('session_handshake'));
      assert.ok(names.includes('help'));
    } finally {
      await h.close();
    }
  });

  it('loads .ts, .mts, .js and .mjs configs in a "type":"commonjs" project, ESM or CommonJS syntax', async () => {
    const cases: [string, string][] = [
      ['m1nd.config.ts', `import { defineConfig } from ${JSON.stringify(CORE)};\nimport { tier } from './tier';\nexport default defineConfig({ tier, bundles: [] as string[] });\n`],
      ['m1nd.config.mts', `export default { tier: 'essential', bundles: [] as string[] };\n`],
      ['m1nd.config.js', `module.exports = { tier: 'essential', bundles: [], storage: { dir: require('node:path').join(__dirname, 'store') } };\n`],
      ['m1nd.config.mjs', `export default { tier: 'essential', bundles: [], storage: { dir: new URL('./store', import.meta.url).pathname } };\n`],
    ];
    for (const [name, text] of cases) {
      const ws = tempDir();
      fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'cjs-project', type: 'commonjs' }));
      fs.writeFileSync(path.join(ws, 'tier.ts'), `export const tier = 'essential';\n`);
      fs.writeFileSync(path.join(ws, name), text);
      const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
      try {
        assert.equal(host.current.tierChoice().tier, 'essential', name);
        if (name.endsWith('js')) assert.equal(host.current.settings.storeDir, path.join(ws, 'store'), `${name}: __dirname and import.meta.url name the config's folder`);
      } finally {
        await host.close();
      }
      assert.deepEqual(fs.readdirSync(ws).filter((f) => f.endsWith('.mjs') && f.startsWith('.')), [], `${name}: the bundled copy is removed`);
    }
  });

  it('names the cause of a config that does not load, with a hint per cause', async () => {
    const causes: { text: string; code: string; message: RegExp; hint: RegExp }[] = [
      { text: `export default { tier: 'full', \n`, code: 'M1ND_ERR_CONFIG_LOAD', message: /syntax error at .*m1nd\.config\.ts:2:1/, hint: /fix the syntax at .*:2:1/ },
      { text: `import { t } from './missing';\nexport default { tier: t };\n`, code: 'M1ND_ERR_CONFIG_LOAD', message: /imports "\.\/missing", which does not exist \(.*:1:19\)/, hint: /fix the import path/ },
      { text: `import pad from 'left-pad-not-installed';\nexport default { tier: pad('x') };\n`, code: 'M1ND_ERR_CONFIG_LOAD', message: /package "left-pad-not-installed", which is not installed/, hint: /npm install left-pad-not-installed/ },
      { text: `const x: any = undefined;\nexport default { tier: x.name };\n`, code: 'M1ND_ERR_CONFIG_LOAD', message: /threw while evaluating: .*name/, hint: /fix the code of m1nd\.config\.ts/ },
      { text: `export const tier = 'full';\n`, code: 'M1ND_ERR_CONFIG_INVALID', message: /no default export \(it exports "tier"\)/, hint: /export default defineConfig/ },
      { text: `export default () => ({ tier: 'full' });\n`, code: 'M1ND_ERR_CONFIG_INVALID', message: /default export is a function/, hint: /plain|object/ },
      { text: `export default { gates: { readOnly: 'yes' } };\n`, code: 'M1ND_ERR_CONFIG_INVALID', message: /config key "gates\.readOnly" expected boolean/, hint: /fix "gates\.readOnly"/ },
      { text: `export default { bundles: ['nonexistent-bundle'] };\n`, code: 'M1ND_ERR_CONFIG_INVALID', message: /bundle "nonexistent-bundle" not found/, hint: /enable one of: .*default/ },
    ];
    for (const c of causes) {
      const ws = tempDir();
      fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'p', type: 'commonjs' }));
      fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), c.text);
      await assert.rejects(startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() }), (e: Error & { code?: string; hint?: string }) => {
        assert.equal(e.code, c.code, c.text);
        assert.match(e.message, c.message, c.text);
        assert.match(e.hint ?? '', c.hint, c.text);
        assert.doesNotMatch(e.hint ?? '', c.message.source.includes('syntax') ? /$^/ : /syntax error/, `${c.text}: the hint names this cause, not a syntax error`);
        return true;
      });
    }
  });

  it('warns about options and disable entries naming a plugin that is not loaded (with the closest name), and plugin folders that do not exist', async () => {
    const ws = tempDir();
    writePlugin(path.join(ws, 'my-plugins'), 'greeter', ['greet']);
    writeConfig(ws, `{ bundles: [], plugins: { dirs: ['./my-plugins', './no-such-folder'], disable: ['greter-old'] }, options: { greetr: { greeting: 'hej' } } }`);
    const lines: string[] = [];
    const log = memoryLogger(lines);
    const host = await startHost({ workspaceRoot: ws, env: {}, log });
    try {
      assert.ok(lines.some((l) => /options for plugin "greetr", which is not loaded.*did you mean "greeter"/.test(l)), lines.join('\n'));
      assert.ok(lines.some((l) => /disable names plugin "greter-old", which is not loaded/.test(l)), lines.join('\n'));
      assert.ok(lines.some((l) => /^warn .*plugins\.dirs names \.\/no-such-folder, which does not exist/.test(l)), lines.join('\n'));
    } finally {
      await host.close();
    }
  });

  it('reloads a config whose imported file changed, and lists that file among the paths dev mode watches', async () => {
    const ws = tempDir();
    fs.writeFileSync(path.join(ws, 'tier.ts'), `export const tier = 'essential';\n`);
    fs.writeFileSync(path.join(ws, 'm1nd.config.ts'), `import { tier } from './tier.ts';\nexport default { tier, bundles: [] as string[] };\n`);
    const host = await startHost({ workspaceRoot: ws, env: {}, log: memoryLogger() });
    try {
      assert.equal(host.current.tierChoice().tier, 'essential');
      const watched = (host.lastInput as { watchPaths: string[] }).watchPaths;
      assert.ok(watched.includes(path.join(ws, 'tier.ts')) && watched.includes(path.join(ws, 'm1nd.config.ts')), watched.join(', '));
      fs.writeFileSync(path.join(ws, 'tier.ts'), `export const tier = 'full';\n`);
      assert.equal((await host.reload()).ok, true);
      assert.equal(host.current.tierChoice().tier, 'full', 'the edit is seen: each load is a fresh module');
    } finally {
      await host.close();
    }
  });
});
