/** Process entry of the CLI for the built package: `node dist/core/main.js serve` (bin/m1nd.js runs the sources). */
import { main } from './cli.ts';

const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
