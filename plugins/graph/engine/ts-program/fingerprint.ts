/**
 * The program-input fingerprint: what every checker result depends on besides source text (the
 * TypeScript version, the checker version and code, and every tsconfig/jsconfig of the workspace). Computed
 * without loading the compiler, so the engine can validate stored results on the main thread.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { hashModules } from '../module-hash.ts';
import { CHECKER_VERSION } from './protocol.ts';

/** Config file names that define a program. */
export const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json'] as const;

/** Directories never searched for configs (those the walk never enters or prunes). */
const CONFIG_IGNORE = ['**/node_modules/**', '**/.git/**', '**/.m1nd/**', '**/dist/**', '**/build/**'];

const TS_VERSION = (createRequire(import.meta.url)('typescript/package.json') as { version: string }).version;

/** Symlinks are not followed (as the walk does): a symlink cycle would be walked for ever. */
const GLOB = { ignore: CONFIG_IGNORE, dot: false, onlyFiles: true, suppressErrors: true, followSymbolicLinks: false };

/** Workspace config files (relative paths), sorted. */
export function findConfigFiles(root: string): string[] {
  return fg.sync(CONFIG_NAMES.map((n) => `**/${n}`), { cwd: root, ...GLOB }).sort();
}

/** Hash of the TypeScript version, the checker version and the workspace's config files. */
export function programFingerprint(root: string): string {
  return fingerprintOf(root, findConfigFiles(root));
}

/**
 * `programFingerprint` with the workspace walked asynchronously (fast-glob's async walker), so a
 * large workspace does not hold the event loop while the stored graph loads.
 */
export async function programFingerprintAsync(root: string): Promise<string> {
  const files = (await fg(CONFIG_NAMES.map((n) => `**/${n}`), { cwd: root, ...GLOB })).sort();
  return fingerprintOf(root, files);
}

let checkerCode: string | undefined;

/**
 * Hash of the checker's own code (this folder's modules, as the process runs them: sources or
 * dist/): a change to what it emits re-checks stored results even when CHECKER_VERSION was not bumped.
 */
function checkerCodeHash(): string {
  checkerCode ??= hashModules(dirname(fileURLToPath(import.meta.url)), (n) => /\.[cm]?[jt]s$/.test(n) && !n.endsWith('.d.ts'), 16);
  return checkerCode;
}

function fingerprintOf(root: string, configs: readonly string[]): string {
  const h = createHash('sha1').update(`${TS_VERSION}:${CHECKER_VERSION}:${checkerCodeHash()}`);
  for (const rel of configs) {
    h.update(`\0${rel}\0`);
    try {
      h.update(readFileSync(join(root, rel)));
    } catch {
      // an unreadable config counts as its name only
    }
  }
  return h.digest('hex').slice(0, 16);
}
