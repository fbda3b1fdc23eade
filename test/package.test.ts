/**
 * The package as a user meets it: `npm pack` this checkout, install the tarball into a fresh
 * `npm init -y` (CommonJS) project from the npm cache, write a config and plugins that import only
 * 'm1nd' and 'm1nd/graph', type-check them, serve them over stdio to an SDK client, hot-reload one,
 * and ship one as a bundle package the config names.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLE = path.join(ROOT, 'dist/m1nd.js');
/**
 * The config file the project writes. `.mts` until config files load in CommonJS projects on this
 * branch (issue 13 #2, the cli branch bundles them with esbuild); then `m1nd.config.ts`.
 */
const CONFIG_FILE = 'm1nd.config.ts';

/** dist/ is missing or older than a source file it is built from. */
function distIsStale(): boolean {
  if (!fs.existsSync(BUNDLE) || !fs.existsSync(path.join(ROOT, 'dist/graph.js')) || !fs.existsSync(path.join(ROOT, 'dist/plugins/graph/api.d.ts'))) return true;
  const built = fs.statSync(BUNDLE).mtimeMs;
  const newer = (dir: string): boolean =>
    fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? newer(p) : /\.(ts|mjs)$/.test(e.name) && !e.name.endsWith('.test.ts') && fs.statSync(p).mtimeMs > built;
    });
  return ['core', 'plugins', 'bundles', 'scripts'].some((d) => newer(path.join(ROOT, d)));
}

/** The example plugin of docs/plugins.md ("The graph service"), as the docs show it. */
function docsGraphPlugin(): string {
  const docs = fs.readFileSync(path.join(ROOT, 'docs/plugins.md'), 'utf8');
  const match = /<!-- example: graph-plugin -->\n```ts\n([\s\S]*?)```/.exec(docs);
  assert.ok(match, 'docs/plugins.md has the graph plugin example');
  return match[1];
}

function helloPlugin(greeting: string, description: string): string {
  return `import { AgentId, definePlugin, defineVerb, Type } from 'm1nd';
const greeting: string = ${JSON.stringify(greeting)};
export default definePlugin({
  name: 'hello',
  version: '1.0.0',
  apply(ctx) {
    ctx.registerVerb(defineVerb({ name: 'hello_there', description: ${JSON.stringify(description)}, input: Type.Object({ agent_id: AgentId, who: Type.String({ maxLength: 100 }) }), tiers: ['essential'], effect: 'read', handler: (a) => ({ hi: \`\${greeting} \${a.who}\` }) }));
  },
});
`;
}

/** Request options for calls on a loaded machine: ingest with the type-check pass can pass the SDK's 60 s default. */
const SLOW = { timeout: 240_000, resetTimeoutOnProgress: true };

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function json(result: unknown): any {
  const r = result as CallToolResult;
  assert.notEqual(r.isError, true, JSON.stringify(r.content));
  const first = r.content[0];
  assert.equal(first?.type, 'text');
  return JSON.parse((first as { text: string }).text);
}

/** An SDK client talking to `m1nd <command>` run from the installed package in the project. */
async function stdioClient(project: string, command: 'serve' | 'dev'): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(project, 'node_modules/m1nd/bin/m1nd.js'), command],
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? project, M1ND_LOG_LEVEL: 'warn', M1ND_CACHE_DIR: path.join(project, '.m1nd-cache') },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: 'package-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('the m1nd package, packed and installed into a fresh npm init -y project', function () {
  this.timeout(300_000);
  let tarball = '';
  let packed: string[] = [];
  let project = '';
  let packDir = '';
  /** tsc's output on the project's config and plugins, started in `before`; '' when clean. */
  let typeErrors: Promise<string> = Promise.resolve('not run');

  after(async () => {
    await typeErrors;
    // The installed project weighs ~150 MB.
    for (const dir of [project, packDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  before(async function () {
    // `npm ci` builds dist/ (prepare); a checkout whose dist/ is missing or stale builds it here.
    if (distIsStale()) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    const out = (packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-pack-')));
    try {
      const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
      const info = JSON.parse(stdout)[0] as { filename: string; files: { path: string }[] };
      tarball = path.join(out, info.filename);
      packed = info.files.map((f) => f.path);
    } catch (error) {
      console.warn(`  package tests skipped: npm pack cannot run here (${(error as Error).message.split('\n')[0]})`);
      this.skip();
    }
    // A bare folder (no package.json above it in the temp dir): `npm init -y` writes what a user gets.
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-user-'));
    await run('npm', ['init', '-y'], { cwd: project });
    // From the npm cache (the registry only for what it lacks). Install scripts are skipped: the one
    // that matters, better-sqlite3's, would compile the native module for minutes; the checkout's
    // build of the same version for the same Node is copied instead.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
    const native = 'node_modules/better-sqlite3';
    const version = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, native, 'package.json'), 'utf8')).version;
    if (version(ROOT) === version(project)) {
      fs.mkdirSync(path.join(project, native, 'build/Release'), { recursive: true });
      fs.copyFileSync(path.join(ROOT, native, 'build/Release/better_sqlite3.node'), path.join(project, native, 'build/Release/better_sqlite3.node'));
    } else {
      await run('npm', ['rebuild', 'better-sqlite3'], { cwd: project });
    }
    write(path.join(project, 'src/parse.ts'), `export function parse(text: string): string[] {\n  return text.split(',');\n}\n`);
    write(path.join(project, 'src/load.ts'), `import { parse } from './parse';\nexport function load(text: string): number {\n  return parse(text).length;\n}\n`);
    write(path.join(project, 'src/main.ts'), `import { load } from './load';\nexport function main(): void {\n  console.log(load('a,b'));\n}\n`);
    write(path.join(project, CONFIG_FILE), `import { defineConfig } from 'm1nd';\nexport default defineConfig({ plugins: { dirs: ['./plugins'] } });\n`);
    write(path.join(project, 'plugins/hello/index.mts'), helloPlugin('hello', 'Says hello.'));
    write(path.join(project, 'plugins/blast/index.mts'), docsGraphPlugin());
    // The type check runs while the serving tests do (its own copies: those tests edit the files).
    const check = path.join(project, 'typecheck');
    for (const f of [CONFIG_FILE, 'plugins/hello/index.mts', 'plugins/blast/index.mts']) write(path.join(check, f), fs.readFileSync(path.join(project, f), 'utf8'));
    write(path.join(check, 'wrong.ts'), `import { defineConfig } from 'm1nd';\n// @ts-expect-error bundles takes names\ndefineConfig({ bundles: 42 });\n`);
    write(
      path.join(check, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: [CONFIG_FILE, 'plugins/hello/index.mts', 'plugins/blast/index.mts', 'wrong.ts'],
      }),
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    typeErrors = run(process.execPath, [tsc, '-p', '.'], { cwd: check, maxBuffer: 16 * 1024 * 1024 }).then(
      () => '',
      (e: { stdout?: string; message: string }) => e.stdout || e.message,
    );
  });

  it('packs the bin, the compiled bundle, the graph subpath, their types and the docs, and no tests, benches, CI, config or source maps', () => {
    for (const f of ['package.json', 'README.md', 'bin/m1nd.js', 'dist/m1nd.js', 'dist/m1nd.cjs', 'dist/core/bundle-loader.js', 'dist/core/cache-file.js', 'dist/graph.js', 'dist/core/index.d.ts', 'dist/plugins/graph/api.d.ts', 'dist/core/fresh-import-hooks.mjs', 'dist/plugins/graph/index.js', 'dist/plugins/graph/engine/ts-program/checker-worker.js', 'dist/bundles/default/index.js']) {
      assert.ok(packed.includes(f), `the tarball has ${f}`);
    }
    const unwanted = packed.filter((f) => /^(test|bench|\.ci|scripts|core|plugins|bundles)\//.test(f) || /^(m1nd\.config\.ts|tsconfig.*\.json|\.mocharc.*)$/.test(f) || f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')));
    assert.deepEqual(unwanted, [], 'nothing but the build, the bin and the docs');
  });

  it('resolves m1nd and m1nd/graph from the CommonJS project to the installed bundle, one module instance', async () => {
    assert.equal(JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')).type ?? 'commonjs', 'commonjs');
    const script = `Promise.all([import('m1nd'), import('m1nd/graph')]).then(([m, g]) => console.log(JSON.stringify({
      api: [typeof m.defineConfig, typeof m.definePlugin, typeof m.toolContent, typeof g.propagate, typeof g.explainPaths],
      version: g.GRAPH_API_VERSION,
      same: g.propagate === m.__m1ndGraphApi.propagate,
      main: require.resolve('m1nd'),
    })))`;
    const out = JSON.parse((await run(process.execPath, ['-e', script], { cwd: project, env: { ...process.env, M1ND_CACHE_DIR: path.join(project, '.m1nd-cache') } })).stdout);
    assert.deepEqual(out.api, ['function', 'function', 'function', 'function', 'function']);
    assert.equal(out.version, 1);
    assert.equal(out.same, true, 'm1nd/graph re-exports the bundle instance the host runs');
    assert.equal(fs.realpathSync(out.main), fs.realpathSync(path.join(project, 'node_modules/m1nd/dist/m1nd.js')));
  });

  it('serves the plugins over stdio: after ingest, the docs example answers from the graph (callers, dependents, a path)', async () => {
    const { client, stderr } = await stdioClient(project, 'serve');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('hello_there') && names.includes('ingest'), `tools/list: ${names.join(', ')}\n${stderr()}`);
      assert.equal(json(await client.callTool({ name: 'hello_there', arguments: { agent_id: 'ada', who: 'ada' } }, undefined, SLOW)).hi, 'hello ada');
      json(await client.callTool({ name: 'ingest', arguments: { agent_id: 'ada', path: '.' } }, undefined, SLOW));
      const blast = json(await client.callTool({ name: 'blast_radius', arguments: { agent_id: 'ada', node: 'parse', to: 'main' } }, undefined, SLOW));
      assert.equal(blast.node, 'function:src/parse.ts#parse');
      assert.deepEqual(blast.callers, ['function:src/load.ts#load']);
      const main = blast.dependents.find((d: { id: string }) => d.id === 'function:src/main.ts#main');
      assert.ok(main, `main depends on parse through load: ${JSON.stringify(blast.dependents)}`);
      assert.equal(main.via.length, 2);
      assert.deepEqual(blast.path, ['`parse` is called by `load`', '`load` is called by `main`']);
    } finally {
      await client.close();
    }
  });

  it('answers `m1nd call` from the installed bin: health, ingest, and an impact whose entries are counted in tokens (with the rank table the package ships: nothing built or cached)', async () => {
    const bin = path.join(project, 'node_modules/m1nd/bin/m1nd.js');
    const cache = path.join(project, '.m1nd-call-cache');
    const call = async (...args: string[]) => JSON.parse((await run(process.execPath, [bin, 'call', ...args, '--json'], { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? project, M1ND_CACHE_DIR: cache }, maxBuffer: 16 * 1024 * 1024 })).stdout);
    assert.equal((await call('health')).status, 'ok');
    assert.ok((await call('ingest', '{"path":"."}')).nodes >= 3);
    // A 100-token budget the entries' bytes exceed: they are tokenised (listed_tokens says so).
    const args = JSON.stringify({ node_id: 'parse', token_budget: 100 });
    const first = await call('impact', args);
    assert.ok(first.listed_tokens > 0 && first.listed_tokens <= 100, JSON.stringify(first).slice(0, 400));
    assert.ok(fs.readdirSync(path.join(project, 'node_modules/m1nd/dist/core')).some((n) => /^o200k-table-.+\.bin$/.test(n)), 'the package ships the rank table');
    assert.deepEqual(fs.existsSync(cache) ? fs.readdirSync(cache).filter((n) => n.startsWith('gpt-tokenizer-')) : [], [], 'no rank list or table built and cached: the shipped table was read');
    const second = await call('impact', args);
    assert.equal(second.listed_tokens, first.listed_tokens, 'the same count in the next process');
    assert.deepEqual(second.direct, first.direct);
  });

  it('hot-reloads an edited plugin under m1nd dev: tools/list_changed, then the new description and behaviour', async () => {
    const { client, stderr } = await stdioClient(project, 'dev');
    try {
      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      assert.equal(json(await client.callTool({ name: 'hello_there', arguments: { agent_id: 'ada', who: 'ada' } }, undefined, SLOW)).hi, 'hello ada');
      write(path.join(project, 'plugins/hello/index.mts'), helloPlugin('bonjour', 'Says bonjour.'));
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no tools/list_changed within 120 s\n${stderr()}`)), 120_000).unref());
      await Promise.race([changed, timeout]);
      const tool = (await client.listTools()).tools.find((t) => t.name === 'hello_there');
      assert.equal(tool?.description, 'Says bonjour.');
      assert.equal(json(await client.callTool({ name: 'hello_there', arguments: { agent_id: 'ada', who: 'ada' } }, undefined, SLOW)).hi, 'bonjour ada');
    } finally {
      await client.close();
    }
  });

  it('loads the graph plugin shipped as a bundle package the config names, with the tier the bundle curates', async () => {
    const pkg = path.join(project, 'm1nd-bundle-blast');
    write(path.join(pkg, 'package.json'), JSON.stringify({ name: 'm1nd-bundle-blast', version: '1.0.0', type: 'module', main: 'index.mjs', peerDependencies: { m1nd: '*' } }, null, 2));
    write(
      path.join(pkg, 'index.mjs'),
      `import { defineBundle } from 'm1nd';
export default defineBundle({
  name: 'blast',
  description: 'Blast radius from the code graph.',
  plugins: { dirs: ['./plugins'] },
  tier: 'blast',
  tiers: { blast: { extends: 'essential', add: ['blast_radius'] } },
});
`,
    );
    write(path.join(pkg, 'plugins/blast/index.ts'), docsGraphPlugin());
    fs.rmSync(path.join(project, 'plugins/blast'), { recursive: true });
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', './m1nd-bundle-blast'], { cwd: project });
    write(path.join(project, CONFIG_FILE), `import { defineConfig } from 'm1nd';\nexport default defineConfig({ bundles: ['default', 'm1nd-bundle-blast'], plugins: { dirs: ['./plugins'] } });\n`);
    const { client, stderr } = await stdioClient(project, 'serve');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('blast_radius'), `the bundle's tier advertises blast_radius: ${names.join(', ')}\n${stderr()}`);
      const blast = json(await client.callTool({ name: 'blast_radius', arguments: { agent_id: 'ada', node: 'load' } }, undefined, SLOW));
      assert.deepEqual(blast.callers, ['function:src/main.ts#main']);
    } finally {
      await client.close();
    }
  });

  it('type-checks the config and plugins importing m1nd and m1nd/graph with 0 errors (strict, library types checked)', async () => {
    assert.equal(await typeErrors, '', 'tsc reports no error');
  });
});
