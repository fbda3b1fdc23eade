// Second build step (after tsc): bundles the CLI, the public API and every built-in plugin and
// bundle into one ES module, dist/m1nd.js, which `bin/m1nd.js` runs and `import 'm1nd'` resolves to.
// One file instead of ~650 modules is what makes start-up close to a bare SDK server's (each ESM
// module costs a resolve, a read and a link). Dependencies that load on first use, are native or
// are large data stay external. Each bundled source keeps the `import.meta.url` of its tsc output
// under dist/, so file lookups relative to a module (package.json, plugin folders, the checker
// worker, grammars) find the same files as the per-file build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'm1nd.js');
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
  ...builtins.map((b, i) => `  [new URL('./${b}.js', import.meta.url), builtin${i}],`),
  `]));`,
].join('\n');

/** Rewrites `import.meta.url` in each bundled source to the URL of its tsc output in dist/. */
const keepModuleUrls = {
  name: 'keep-module-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(ROOT) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const rel = path.relative(ROOT, args.path).replace(/\.ts$/, '.js').split(path.sep).join('/');
      const source = await fs.promises.readFile(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(`./${rel}`)}, __m1ndDistBase).href`), loader: 'ts' };
    });
  },
};

// Code only reached through a dynamic import() (the HTTP transport behind `serveHttp`, and what it
// imports: the SDK's Streamable HTTP server, Hono's node adapter, the OAuth verifier, node:http2) goes
// into chunks under dist/chunks/, loaded on first use: a process that never serves HTTP neither
// compiles nor evaluates them. Chunks of an earlier build are removed first.
fs.rmSync(path.join(DIST, 'chunks'), { recursive: true, force: true });
await build({
  stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'm1nd-entry.ts', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: DIST,
  entryNames: path.basename(OUT, '.js'),
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  sourcemap: 'linked',
  // Native, lazily required, or loaded by path at run time: resolved from node_modules when needed.
  external: ['better-sqlite3', '@parcel/watcher', 'pg', 'pg-native', 'gpt-tokenizer', 'typescript', 'web-tree-sitter', '@vscode/tree-sitter-wasm', 'tsx', 'tsx/*', 'esbuild', 'fsevents'],
  // Bundled CommonJS dependencies call require(): give the ES module one.
  // Every output file (the entry, or a chunk under dist/chunks/) also names dist/ itself, the base of
  // the module URLs kept above.
  banner: {
    js: [
      `import { createRequire as __m1ndCreateRequire } from 'node:module';`,
      `const require = __m1ndCreateRequire(import.meta.url);`,
      `const __m1ndDistBase = new URL(/\\/chunks\\/[^/]+$/.test(new URL(import.meta.url).pathname) ? '../' : './', import.meta.url).href;`,
    ].join('\n'),
  },
  plugins: [keepModuleUrls],
  logLevel: 'warning',
});

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
