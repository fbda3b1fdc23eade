#!/usr/bin/env node
// Registers the TypeScript loader, then runs the CLI from source: plugins are plain .ts folders.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../core/cli.ts');
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
