/**
 * m1nd's configuration for this repository (a user's repository has its own m1nd.config.ts, or
 * none: then the default bundle serves every built-in family). See docs/configuration.md.
 */
import { defineConfig } from './core/index.ts';

export default defineConfig({
  bundles: ['default'],
  // tier: 'essential',                       // advertised when M1ND_TOOL_TIER is unset
  // tiers: { essential: { add: ['metrics'] } },
  // plugins: { dirs: ['./my-plugins'], packages: [], disable: [] },
  // gates: { readOnly: false, proofGate: false, resultTokenLimit: 20000 },
  // options: { 'my-plugin': { greeting: 'hi' } },
  // storage: { dir: '.m1nd' },
});
