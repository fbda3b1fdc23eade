/** The package version, read once from package.json (it is also the core version plugins check). */
import { readFileSync } from 'node:fs';

// ../package.json from core/, ../../package.json from a built dist/core/.
function readPackage(): { name: string; version: string; engines?: { node?: string } } {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      return JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
    } catch {
      // try the next location
    }
  }
  throw new Error('m1nd: package.json not found next to core/');
}

const pkg = readPackage();

export const CORE_VERSION: string = pkg.version;
/** The Node versions package.json `engines.node` supports (a semver range). */
export const NODE_ENGINE: string = pkg.engines?.node ?? '*';
export const SERVER_NAME = 'm1nd';
