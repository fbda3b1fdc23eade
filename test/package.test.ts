import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tempDir } from './helpers/mcp.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(ROOT, 'dist/m1nd.js');

/** A CommonJS project (npm init's default) where `m1nd` is installed (linked to this checkout). */
function consumerProject(): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"consumer","version":"1.0.0"}\n');
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules/m1nd'), 'dir');
  return dir;
}

describe('the m1nd package', function () {
  this.timeout(300000);

  before(() => {
    // `npm ci` builds dist/ (prepare); a checkout that never built it builds it here once.
    if (!fs.existsSync(BUNDLE) || !fs.existsSync(path.join(ROOT, 'dist/core/index.d.ts'))) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  });

  it('packs the bin, the compiled bundle, its types and the docs, and no tests, benches, CI, config or source maps', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const files: string[] = JSON.parse(stdout)[0].files.map((f: { path: string }) => f.path);
    for (const f of ['package.json', 'README.md', 'bin/m1nd.js', 'dist/m1nd.js', 'dist/core/index.d.ts', 'dist/core/fresh-import-hooks.mjs', 'dist/plugins/graph/index.js', 'dist/plugins/graph/engine/ts-program/checker-worker.js', 'dist/bundles/default/index.js']) {
      assert.ok(files.includes(f), `the tarball has ${f}`);
    }
    const unwanted = files.filter((f) => /^(test|bench|\.ci|scripts|core|plugins|bundles)\//.test(f) || /^(m1nd\.config\.ts|tsconfig.*\.json|\.mocharc.*)$/.test(f) || f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')));
    assert.deepEqual(unwanted, [], 'nothing but the build, the bin and the docs');
  });

  it('resolves import("m1nd") from a CommonJS project to the bundle the CLI runs, with defineConfig and definePlugin', async () => {
    const dir = consumerProject();
    const { stdout } = await run(process.execPath, ['-e', `import('m1nd').then((m) => console.log(typeof m.defineConfig, typeof m.definePlugin, typeof m.main))`], { cwd: dir });
    assert.equal(stdout.trim(), 'function function function');
    const resolved = (await run(process.execPath, ['-p', `require.resolve('m1nd')`], { cwd: dir })).stdout.trim();
    assert.equal(fs.realpathSync(resolved), BUNDLE);
  });

  it('types a plugin written against `m1nd` with 0 errors (no @types/node needed)', async () => {
    const dir = consumerProject();
    fs.writeFileSync(
      path.join(dir, 'plugin.ts'),
      `import { defineConfig, definePlugin, defineVerb, Type, AgentId } from 'm1nd';
export const config = defineConfig({ bundles: ['default'], plugins: { dirs: ['./plugins'] } });
export default definePlugin({
  name: 'hello',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(defineVerb({ name: 'hello_there', description: 'Says hello.', input: Type.Object({ agent_id: AgentId, who: Type.String() }), tiers: ['full'], effect: 'read', handler: (a) => ({ hi: a.who }) }));
  },
});
// A wrong option is a type error: the check below must fail to compile.
// @ts-expect-error bundles takes names
defineConfig({ bundles: 42 });
`,
    );
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['plugin.ts'] }),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const out = await run(process.execPath, [tsc, '-p', '.'], { cwd: dir }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    assert.equal(out, '', 'tsc reports no error');
  });

  it('runs the installed bin from the bundle, registering the TypeScript loader for a .mts config and plugin', async () => {
    const dir = consumerProject();
    fs.mkdirSync(path.join(dir, 'plugins/hello'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'm1nd.config.mts'), `import { defineConfig } from 'm1nd';\nexport default defineConfig({ plugins: { dirs: ['./plugins'] } });\n`);
    fs.writeFileSync(
      path.join(dir, 'plugins/hello/index.mts'),
      `import { definePlugin, defineVerb, Type, AgentId } from 'm1nd';
const greeting: string = 'hello';
export default definePlugin({ name: 'hello', version: '1.0.0', apply(ctx) {
  ctx.registerVerb(defineVerb({ name: 'hello_there', description: 'Says hello.', input: Type.Object({ agent_id: AgentId, who: Type.String() }), tiers: ['full'], effect: 'read', handler: (a) => ({ hi: \`\${greeting} \${a.who}\` }) }));
} });
`,
    );
    const bin = path.join(dir, 'node_modules/m1nd/bin/m1nd.js');
    const { stdout } = await run(process.execPath, [bin, 'call', 'hello_there', '{"who":"ada"}'], { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
    assert.equal(JSON.parse(stdout).hi, 'hello ada');
  });
});
