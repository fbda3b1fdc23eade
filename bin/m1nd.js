#!/usr/bin/env node
// Runs the compiled CLI, dist/m1nd.js (built by `npm run build`, which `npm ci` and `npm install`
// run as `prepare`). M1ND_FROM_SOURCE=1, or a checkout without dist/, runs the TypeScript sources
// through tsx instead (what the tests do, so they exercise the current sources).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/m1nd.js', import.meta.url);
if (process.env.M1ND_FROM_SOURCE !== '1' && existsSync(compiled)) {
  const { main } = await import(compiled.href);
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} else {
  // Heavy dependencies are imported before the TypeScript loader is registered: loaded then, their
  // hundreds of files skip the loader's per-module hooks.
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
  ]);
  const { register } = await import('tsx/esm/api');
  register();
  await import('../core/main.ts');
}
