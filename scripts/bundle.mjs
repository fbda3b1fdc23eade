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
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(`./${rel}`)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

await build({
  stdin: { contents: entry, resolveDir: ROOT, sourcefile: 'm1nd-entry.ts', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: OUT,
  sourcemap: 'linked',
  // Native, lazily required, or loaded by path at run time: resolved from node_modules when needed.
  external: ['better-sqlite3', 'pg', 'pg-native', 'gpt-tokenizer', 'typescript', 'web-tree-sitter', '@vscode/tree-sitter-wasm', 'tsx', 'tsx/*', 'fsevents'],
  // Bundled CommonJS dependencies call require(): give the ES module one.
  banner: { js: `import { createRequire as __m1ndCreateRequire } from 'node:module';\nconst require = __m1ndCreateRequire(import.meta.url);` },
  plugins: [keepModuleUrls],
  logLevel: 'warning',
});
