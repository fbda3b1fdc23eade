/** The package version, read once from package.json (it is also the core version plugins check). */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

export const CORE_VERSION: string = pkg.version;
export const SERVER_NAME = 'm1nd';
