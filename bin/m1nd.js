#!/usr/bin/env node
// Runs the CLI from source: plugins and configs are plain .ts files, loaded through tsx.
// Heavy dependencies are imported first, before the TypeScript loader is registered: loaded then,
// their hundreds of files skip the loader's per-module hooks (start-up ~2× faster).
await Promise.all([
  import('@sinclair/typebox'),
  import('@sinclair/typebox/compiler'),
  import('@sinclair/typebox/value'),
  import('@modelcontextprotocol/sdk/server/index.js'),
  import('@modelcontextprotocol/sdk/server/stdio.js'),
  import('@modelcontextprotocol/sdk/types.js'),
  import('tapable'),
  import('semver'),
  import('fast-glob'),
  import('better-sqlite3'),
  import('chokidar'),
  import('ignore'),
  import('picomatch'),
]);
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../core/cli.ts');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
