/** The default bundle: every built-in verb family, with the tiers their registrations declare (m1nd's). */
import { defineBundle } from '../../core/index.ts';

export default defineBundle({
  name: 'default',
  description: 'All built-in families: host, core, edit, memory, perspective, lock, resonate, structure.',
  plugins: { dirs: ['../../plugins'] },
});
