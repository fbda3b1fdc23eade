#!/usr/bin/env node
// Runs the compiled CLI, dist/m1nd.js (built by `npm run build`, which `npm ci` and `npm install`
// run as `prepare`). M1ND_FROM_SOURCE=1, or a checkout without dist/, runs the TypeScript sources
// through tsx instead (what the tests do, so they exercise the current sources).
import { existsSync } from 'node:fs';

/** Options of core/cli.ts that take a value (the word after them is not the command). */
const VALUED = new Set(['--config', '--workspace', '--tier', '--port', '--host', '--dir']);

/** The command `main` will run: the first positional argument, else `serve` (a bare `m1nd`), `help` or `version`. */
function command(argv) {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return argv[i + 1] ?? 'serve';
    if (VALUED.has(a)) i++;
    else if (a === '--help' || a === '-h' || a === '--version' || a === '-v') return 'help';
    else if (!a.startsWith('-')) return a;
  }
  return 'serve';
}

const argv = process.argv.slice(2);
const compiled = new URL('../dist/m1nd.js', import.meta.url);
if (process.env.M1ND_FROM_SOURCE !== '1' && existsSync(compiled)) {
  // A server's young generation is set once its host is up (core/cli-heap.ts): the bundle's load grows
  // it to 2 × 4 MB, the server's size (held from here at 2 × 1 MB, the start cost 6% more instructions).
  const { main } = await import(compiled.href);
  const code = await main(argv);
  if (code >= 0) process.exit(code);
} else {
  // From sources, a server keeps its young generation at its initial 2 × 1 MB from here (the TypeScript
  // loader would grow it to V8's maximum, 2 × 16 MB, and V8 never gives it back); `serve` then grows it to
  // its set size and holds it there (core/cli-heap.ts, which reads this state). M1ND_LEAN_HEAP=0: V8's default.
  const hold = ['serve', 'dev', 'ui'].includes(command(argv)) && process.env.M1ND_LEAN_HEAP !== '0' ? (await import('node:v8')).setFlagsFromString : null;
  hold?.('--semi-space-growth-factor=1');
  if (hold) globalThis[Symbol.for('m1nd.youngGeneration')] = { factor: 1 };
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
  // The loader's thread is a new isolate, whose set-up put V8's default factor back for the whole process.
  hold?.('--semi-space-growth-factor=1');
  await import('../core/main.ts');
}
