// Second build step (after tsc): bundles the CLI, the public API and every built-in plugin and
// bundle into one CommonJS file, dist/m1nd.cjs, and writes dist/m1nd.js, the ES module that
// `bin/m1nd.js` runs and `import 'm1nd'` resolves to: it loads the bundle through a V8 code cache
// (core/bundle-loader.ts) and re-exports its names. One file instead of ~650 modules is what makes
// start-up close to a bare SDK server's (each ESM module costs a resolve, a read and a link), and the
// code cache saves most of compiling it. CommonJS because Node 20 can cache the compiled code of a
// `vm.Script` but not of an ES module. Dependencies that load on first use, are native or are large
// data stay external. Each bundled source keeps the `import.meta.url` of its tsc output under dist/, so
// file lookups relative to a module (package.json, plugin folders, the checker worker, grammars) find
// the same files as the per-file build.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'm1nd.js');
/** The bundle itself, loaded by OUT. */
const BUNDLE = path.join(DIST, 'm1nd.cjs');
/** The subpath module `m1nd/graph` (types: dist/plugins/graph/api.d.ts). */
const GRAPH_OUT = path.join(DIST, 'graph.js');
/** The bundle's export holding the graph API namespace (not part of the typed `m1nd` surface). */
const GRAPH_NAMESPACE = '__m1ndGraphApi';

/** Built-in plugin and bundle entries (one `index.ts` per folder), as the host discovers them. */
function entries(folder) {
  const dir = path.join(ROOT, folder);
  return fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'index.ts')))
    .sort()
    .map((name) => `${folder}/${name}/index`);
}

// Module hooks are loaded by path (module.register), never bundled.
fs.copyFileSync(path.join(ROOT, 'core/fresh-import-hooks.mjs'), path.join(DIST, 'core/fresh-import-hooks.mjs'));

const builtins = [...entries('plugins'), ...entries('bundles')];
// The entry: the public API, the CLI, and the built-in modules keyed by the file the host would import.
const entry = [
  `export * from './core/index.ts';`,
  // The graph plugin's public API, re-exported by dist/graph.js (the `m1nd/graph` subpath) from this
  // one module instance: a user plugin's imports then share the host's classes and state.
  `export * as ${GRAPH_NAMESPACE} from './plugins/graph/api.ts';`,
  `export { main } from './core/cli.ts';`,
  `import { registerBuiltinModules } from './core/discovery.ts';`,
  ...builtins.map((b, i) => `import * as builtin${i} from './${b}.ts';`),
  `registerBuiltinModules(new Map([`,
  ...builtins.map((b, i) => `  [new URL('./${b}.js', __m1ndDistBase), builtin${i}],`),
  `]));`,
].join('\n');

/**
 * Rewrites `import.meta.url` in each bundled source to the URL of its tsc output in dist/, and
 * `import.meta.resolve` to the one the loader passes in (dist/m1nd.js's: bare names resolve the same).
 */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(ROOT) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const rel = path.relative(ROOT, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/');
      const source = await fs.promises.readFile(args.path, 'utf8');
      const contents = lazyDefaultImports(source, args.path)
        .replaceAll('import.meta.url', `new URL(${JSON.stringify(`./${rel}`)}, __m1ndDistBase).href`)
        .replaceAll('import.meta.resolve(', '__m1ndImportMetaResolve(');
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * CommonJS packages that the start never calls but whose evaluation cost it a few ms each (fast-glob
 * calls os.cpus() at load, semver compiles ~40 regular expressions, picomatch and ignore theirs): in
 * the bundle, `import x from 'pkg'` becomes a stand-in that requires the package on its first use
 * (esbuild bundles a `require()` as a call of the package's lazy wrapper, at that place). The stand-in
 * is a function proxy: calls, `new` and property reads reach the package's default export. Sources
 * run from TypeScript (tests, `M1ND_FROM_SOURCE`) import them as written.
 */
const LAZY_PACKAGES = ['fast-glob', 'semver', 'picomatch', 'ignore'];
const LAZY_IMPORT = new RegExp(`^import (\\w+)(?:, \\{([^}]*)\\})? from '(${LAZY_PACKAGES.join('|')})';$`, 'gm');

/**
 * Packages whose named imports are functions the start never calls (chokidar's `watch`: evaluating
 * chokidar at start loads readdirp and Node's stream family): `import { f, type T } from 'pkg'` becomes
 * `const f = (...a) => require('pkg').f(...a)`, the package required on the first call.
 */
const LAZY_FUNCTION_PACKAGES = ['chokidar'];
const LAZY_FUNCTION_IMPORT = new RegExp(`^import \\{([^}]*)\\} from '(${LAZY_FUNCTION_PACKAGES.join('|')})';$`, 'gm');

function lazyDefaultImports(source, file) {
  source = source.replace(LAZY_FUNCTION_IMPORT, (line, named, pkg) => {
    const names = named.split(',').map((x) => x.trim()).filter(Boolean);
    const values = names.filter((n) => !n.startsWith('type ') && /^\w+$/.test(n));
    const types = names.filter((n) => n.startsWith('type ')).map((t) => t.slice(5));
    if (values.length + types.length !== names.length) return line;
    // One line, as the import was: the source map's lines stay right.
    return [...values.map((v) => `const ${v} = (...args) => require('${pkg}').${v}(...args);`), types.length > 0 ? `import type { ${types.join(', ')} } from '${pkg}';` : ''].join(' ');
  });
  return source.replace(LAZY_IMPORT, (line, name, named, pkg) => {
    const types = (named ?? '').split(',').map((x) => x.trim()).filter(Boolean);
    // A value import besides the default would still evaluate the package at start: leave the line.
    if (!types.every((t) => t.startsWith('type '))) return line;
    const typeLine = types.length > 0 ? ` import type { ${types.map((t) => t.slice(5)).join(', ')} } from '${pkg}';` : '';
    // One line, as the import was: the source map's lines stay right.
    return `const ${name} = __m1ndLazyDefault(() => require('${pkg}'));${typeLine}`;
  });
}

/**
 * Node built-in modules the start does not use (child processes, zlib, workers, HTTP): each
 * `x = require("node:…")` of the bundle (what esbuild makes of a named import, used only as `x.name`)
 * becomes `x = $m1ndLz("node:…")`, the same length (the source map stays exact), an object that
 * requires the module on its first property read. Loading child_process alone loads net, dgram and
 * the stream family.
 */
const LAZY_BUILTINS = ['node:child_process', 'node:zlib', 'node:worker_threads', 'node:http', 'node:timers/promises', 'node:async_hooks', 'node:crypto', 'node:readline', 'node:perf_hooks', 'node:v8', 'node:stream/promises', 'node:fs/promises', 'node:stream', 'node:string_decoder', 'node:util/types'];

// Code only reached through a dynamic import() (the HTTP transport behind `serveHttp` and what it
// imports) is bundled too, but evaluated on first use (esbuild wraps it in a lazy initialiser); with
// the code cache its compile costs little. Chunks of an earlier (ES module) build are removed.
fs.rmSync(path.join(DIST, 'chunks'), { recursive: true, force: true });
// The bundle is written wrapped in the function the loader compiles it as (core/bundle-loader.ts
// BUNDLE_HEAD/BUNDLE_TAIL, from tsc's output): the loader then compiles the file's text as it is, with
// no concatenation for V8 to flatten into a second 3 MB copy at every start.
const { BUNDLE_HEAD, BUNDLE_TAIL } = await import(pathToFileURL(path.join(DIST, 'core/bundle-loader.js')).href);
const bundled = await build({
  stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'm1nd-entry.ts', loader: 'ts' },
  bundle: true,
  metafile: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: BUNDLE,
  sourcemap: 'linked',
  // Without comments and indentation the file is 40% smaller and pure ASCII (the comments held the
  // only non-ASCII characters): read as a one-byte string, it compiles faster; names are kept, and
  // the source map maps stack traces back to the sources.
  minifyWhitespace: true,
  charset: 'ascii',
  // Native, lazily required, or loaded by path at run time: resolved from node_modules when needed.
  external: ['better-sqlite3', '@parcel/watcher', 'pg', 'pg-native', 'gpt-tokenizer', 'typescript', 'web-tree-sitter', '@vscode/tree-sitter-wasm', 'tsx', 'tsx/*', 'esbuild', 'fsevents'],
  // Strict, as the ES modules it is made of; and dist/ itself, the base of the module URLs kept above.
  banner: {
    js: [
      `${BUNDLE_HEAD}'use strict';`,
      `const __m1ndDistBase = require('node:url').pathToFileURL(__dirname + '/').href;`,
      // See LAZY_PACKAGES: a package's default export, required on first use.
      `const __m1ndLazyDefault = (load) => { let m; const get = () => { if (m === undefined) { const x = load(); m = x && x.__esModule ? x.default : x; } return m; }; return new Proxy(function () {}, { apply: (_, self, args) => Reflect.apply(get(), self, args), construct: (_, args, target) => Reflect.construct(get(), args), get: (_, key) => { const v = get()[key]; return v; }, has: (_, key) => key in get(), set: (_, key, value) => Reflect.set(get(), key, value) }); };`,
      // See LAZY_BUILTINS: a built-in module, required on the first property read.
      `const $m1ndLz = (id) => { let m; return new Proxy({}, { get: (_, key) => (m ??= require(id))[key], has: (_, key) => key in (m ??= require(id)) }); };`,
    ].join('\n'),
  },
  footer: { js: BUNDLE_TAIL.replace(/^\n/, '') },
  plugins: [keepModuleUrls],
  logLevel: 'warning',
});

// Node 20 drops a vm.Script's dynamic-import callback when the script comes from a code cache ("A
// dynamic import callback was not specified"), so every real `import(…)` of the bundle calls
// `$m1ndI(…)` instead, a same-length name (the source map stays exact) that the loader binds to its
// own `import()`. The calls are found by TypeScript's parser, so `import(` inside a string (code that
// workers evaluate) is left alone.
{
  const ts = (await import('typescript')).default;
  const code = fs.readFileSync(BUNDLE, 'utf8');
  const starts = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) starts.push(node.expression.getStart(sourceFile));
    ts.forEachChild(node, visit);
  };
  const sourceFile = ts.createSourceFile(BUNDLE, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  visit(sourceFile);
  let out = '';
  let at = 0;
  for (const start of starts.sort((a, b) => a - b)) {
    if (code.slice(start, start + 6) !== 'import') throw new Error(`dist/m1nd.cjs: no import keyword at ${start}`);
    out += `${code.slice(at, start)}$m1ndI`;
    at = start + 6;
  }
  fs.writeFileSync(BUNDLE, out + code.slice(at));
  if (starts.length === 0) throw new Error('dist/m1nd.cjs: no dynamic import found (the rewrite would be untested)');
}

// Built-in modules the start does not need, required on first use (see LAZY_BUILTINS).
{
  const code = fs.readFileSync(BUNDLE, 'utf8');
  let count = 0;
  const out = code.replace(/([\w$]+)=require\(("node:[a-z0-9_/]+")\)/g, (all, name, id) => {
    if (!LAZY_BUILTINS.includes(JSON.parse(id)) || !name.startsWith('import_')) return all;
    count++;
    return `${name}=$m1ndLz(${id})`;
  });
  if (count === 0) throw new Error('dist/m1nd.cjs: no built-in module import to defer (the rewrite would be untested)');
  fs.writeFileSync(BUNDLE, out);
}

// core/bundle-loader.ts decodes the bundle as Latin-1 (one copy into an external string, no UTF-8
// scan): that is only the same text if every byte is ASCII, which esbuild's `charset: 'ascii'` makes so.
{
  const bytes = fs.readFileSync(BUNDLE);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at >= 0) throw new Error(`dist/m1nd.cjs: a non-ASCII byte at ${at} (the loader decodes the bundle as Latin-1)`);
}

// External packages the bundle imports statically (so requires): its dynamic imports of them must
// require them too, or a package with both builds would be two instances (core/bundle-loader.ts).
const required = [
  ...new Set(
    Object.values(bundled.metafile.inputs)
      .flatMap((input) => input.imports)
      .filter((i) => i.external && (i.kind === 'import-statement' || i.kind === 'require-call') && !i.path.startsWith('node:') && !/^[./]/.test(i.path))
      .map((i) => i.path),
  ),
].sort();

// dist/m1nd.js: loads the bundle (through the code cache) and re-exports its value names, listed by
// loading it once here in a child process without a cache (so the list cannot drift from the source).
const loader = path.join(DIST, 'core/bundle-loader.js');
const bundleNames = JSON.parse(
  execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `import { loadBundle } from ${JSON.stringify(pathToFileURL(loader).href)}; process.stdout.write(JSON.stringify(Object.keys(loadBundle(${JSON.stringify(BUNDLE)}, import.meta.resolve, null, false).exports))); process.exit(0);`],
    { encoding: 'utf8', env: { ...process.env, M1ND_CACHE_DIR: 'off' } },
  ),
).filter((n) => n !== '__esModule').sort();
if (!bundleNames.includes('main') || !bundleNames.includes(GRAPH_NAMESPACE)) throw new Error(`dist/m1nd.cjs exports ${bundleNames.length} names, without main or ${GRAPH_NAMESPACE}`);
// The loader (core/bundle-loader.ts and the three small modules it imports) is compiled into this
// file rather than imported from dist/core/: one ES module for Node's loader to resolve, read and
// compile at every start instead of five.
await build({
  stdin: {
    contents: [
      `import { loadBundle } from './core/bundle-loader.ts';`,
      `const { exports: bundle } = loadBundle(new URL('./m1nd.cjs', import.meta.url), import.meta.resolve, undefined, true, ${JSON.stringify(required)});`,
      `export const { ${bundleNames.join(', ')} } = bundle;`,
    ].join('\n'),
    resolveDir: ROOT,
    sourcefile: 'm1nd-package-entry.ts',
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: OUT,
  banner: {
    js: [
      '// Generated by scripts/bundle.mjs: the `m1nd` package entry. Loads dist/m1nd.cjs (the CLI, the public API and',
      '// the built-in plugins, bundled) through a V8 code cache (core/bundle-loader.ts, compiled in) and re-exports its names.',
    ].join('\n'),
  },
  // The loader's own `import(specifier, options)` is meant to stay a runtime import.
  logOverride: { 'unsupported-dynamic-import': 'silent' },
  logLevel: 'warning',
});
fs.rmSync(`${OUT}.map`, { force: true });

// The built-in plugins' verb schemas are checked here, once, by the loader itself: the installed CLI
// skips the walk that tells whether each schema compiles for plugins compiled into the bundle
// (core/discovery.ts `builtin`; it was ~10% of a `m1nd call`'s start). A child process loads the
// bundle with that skip turned off and starts a host over every built-in plugin in an empty
// workspace; any quarantine fails the build.
{
  const workspace = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'm1nd-bundle-check-'));
  try {
    const quarantined = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          [
            `globalThis[Symbol.for('m1nd.checkBuiltinSchemas')] = true;`,
            `import { loadBundle } from ${JSON.stringify(pathToFileURL(loader).href)};`,
            `const { startHost } = loadBundle(${JSON.stringify(BUNDLE)}, import.meta.resolve, null, false).exports;`,
            `const host = await startHost({ workspaceRoot: ${JSON.stringify(workspace)}, noConfig: true, freshImports: false });`,
            `const verbs = host.current.surface().counts.registry;`,
            `process.stdout.write(JSON.stringify({ verbs, quarantined: host.current.quarantined() }));`,
            `await host.close();`,
            `process.exit(0);`,
          ].join('\n'),
        ],
        { encoding: 'utf8', cwd: workspace, env: { ...process.env, M1ND_CACHE_DIR: 'off', M1ND_WORKSPACE: workspace } },
      ),
    );
    if (quarantined.quarantined.length > 0 || quarantined.verbs === 0) {
      throw new Error(`dist/m1nd.cjs: built-in plugins failed their load checks: ${JSON.stringify(quarantined)}`);
    }
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

// dist/graph.js: named re-exports of the graph API namespace. The value names come from esbuild's own
// view of plugins/graph/api.ts (type-only exports have none), so the list cannot drift from the source.
const names = await valueExports('plugins/graph/api.ts');
fs.writeFileSync(
  GRAPH_OUT,
  [
    '// Generated by scripts/bundle.mjs: `m1nd/graph`, the graph plugin\'s public API (plugins/graph/api.ts),',
    '// from the same module instance as the host (dist/m1nd.js). Types: dist/plugins/graph/api.d.ts.',
    `import { ${GRAPH_NAMESPACE} as api } from './m1nd.js';`,
    `export const { ${names.join(', ')} } = api;`,
    '',
  ].join('\n'),
);

/** The value (non-type) export names of a source module, as esbuild resolves them. */
async function valueExports(file) {
  const result = await build({
    entryPoints: [path.join(ROOT, file)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    outfile: path.join(DIST, '.exports-probe.js'),
    // Only the export list matters: every import stays external.
    plugins: [{ name: 'externals', setup: (b) => b.onResolve({ filter: /.*/ }, (a) => (a.kind === 'entry-point' ? undefined : { path: a.path, external: true })) }],
    logLevel: 'warning',
  });
  const exports = Object.values(result.metafile.outputs).flatMap((o) => o.exports);
  if (exports.length === 0) throw new Error(`${file} has no value exports`);
  return exports.sort();
}
