/**
 * `m1nd new-plugin NAME`: writes a plugin folder a newcomer can copy from (index, one verb, a test
 * run by Node's own test runner), then wires its parent folder into the workspace's config.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_PLUGIN_DIR } from './boot.ts';
import { findConfigFile, loadConfigFile } from './config.ts';
import { ErrorCodes, M1ndError } from './errors.ts';

const HERE = fileURLToPath(import.meta.url);
// From sources the scaffold imports core/index.ts; compiled, the bundle (dist/m1nd.js), which is the
// module the running CLI uses, so the plugin shares its classes (M1ndError) with the host.
const FROM_SOURCES = HERE.endsWith('.ts');
const CORE_INDEX = FROM_SOURCES ? path.join(path.dirname(HERE), 'index.ts') : path.join(path.dirname(HERE), '..', 'm1nd.js');

function importPath(fromDir: string, file: string): string {
  const rel = path.relative(fromDir, file).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Whether `import 'm1nd'` resolves from `dir` (m1nd installed in the project): then plugins import it by name. */
function m1ndInstalledFrom(dir: string): boolean {
  try {
    createRequire(path.join(dir, 'noop.js')).resolve('m1nd');
    return true;
  } catch {
    return false;
  }
}

/** Creates `<dir>/<name>/` with index.ts, verbs/<verb>.ts and <name>.test.ts; returns the files written. */
export function scaffoldPlugin(name: string, dir: string): string[] {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) {
    const suggestion = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^[^a-z]+|-+$/g, '');
    throw new M1ndError(ErrorCodes.PLUGIN_NAME, `plugin name "${name}" must be kebab-case (a-z, 0-9, -)`, { hint: suggestion ? `m1nd new-plugin ${suggestion}` : 'start the name with a letter a-z' });
  }
  const root = path.resolve(dir, name);
  if (fs.existsSync(root)) throw new M1ndError(ErrorCodes.PLUGIN_NAME, `${root} already exists`, { hint: 'pick another name, or --dir another folder' });
  const verb = `${name.replace(/-/g, '_')}_hello`;
  // An installed m1nd is imported by name, as the docs show; otherwise (a checkout, npx) by path.
  const byName = !FROM_SOURCES && m1ndInstalledFrom(root);
  const core = byName ? 'm1nd' : importPath(root, CORE_INDEX);
  const coreFromVerbs = byName ? 'm1nd' : importPath(path.join(root, 'verbs'), CORE_INDEX);
  const testing = FROM_SOURCES ? importPath(root, path.join(path.dirname(CORE_INDEX), 'testing.ts')) : core;
  const files: Record<string, string> = {
    // Plugins are ES modules wherever they live, so hot reload can import them fresh.
    'package.json': `${JSON.stringify({ name: `m1nd-plugin-${name}`, private: true, type: 'module' }, null, 2)}\n`,
    'index.ts': `/** The ${name} plugin: registers its verbs (one file per verb under verbs/). */
import { definePlugin } from '${core}';
import { helloVerb } from './verbs/${verb}.ts';

export default definePlugin({
  name: '${name}',
  version: '0.1.0',
  description: 'Describe what ${name} adds, in one line.',
  // requires: ['graph'],        // services you consume (ctx.service('graph'))
  apply(ctx) {
    ctx.registerVerb(helloVerb);
  },
});
`,
    [`verbs/${verb}.ts`]: `/** ${verb}: an example verb; copy this file for each new verb. */
import { AgentId, defineVerb, Type } from '${coreFromVerbs}';

export const helloVerb = defineVerb({
  name: '${verb}',
  description: 'Greets the caller and counts how often this agent called it.',
  input: Type.Object({
    agent_id: AgentId,
    name: Type.String({ minLength: 1, description: 'Who to greet' }),
    shout: Type.Boolean({ default: false }),
  }),
  tiers: ['full'], // add 'essential' to advertise it in the smallest tier
  effect: 'session', // read | session | write | destructive (decides the read-only gate)
  handler: (args, ctx) => {
    const calls = ctx.session.state(ctx.agentId, '${name}:calls', () => ({ n: 0 }));
    calls.n += 1;
    const greeting = \`hello, \${args.name}\`;
    return { greeting: args.shout ? greeting.toUpperCase() : greeting, calls: calls.n };
  },
});
`,
    // Node's own test runner (node:test), with the tsx loader m1nd depends on: no test framework to install.
    [`${name}.test.ts`]: `// Run: node --import tsx --test ${name}.test.ts   (tsx comes with m1nd)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectInMemory } from '${testing}';
import plugin from './index.ts';

describe('${name} plugin', () => {
  it('greets through a real MCP client and counts calls per agent', async () => {
    // Throws with the reason (check, code, message) if the plugin fails to load.
    const m1nd = await connectInMemory([plugin]);
    try {
      assert.equal((await m1nd.call('${verb}', { agent_id: 't', name: 'ada' })).json.greeting, 'hello, ada');
      assert.equal((await m1nd.call('${verb}', { agent_id: 't', name: 'ada', shout: true })).json.calls, 2);
    } finally {
      await m1nd.close();
    }
  });
});
`,
  };
  const written: string[] = [];
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    written.push(file);
  }
  return written;
}

export interface WireResult {
  /** created: a new config file; edited: `plugins.dirs` gained the folder; present: already loaded; manual: the user adds the line. */
  action: 'created' | 'edited' | 'present' | 'manual';
  file?: string;
  /** What to tell the user (the exact line to add, when manual). */
  message: string;
}

/** The `plugins.dirs` entry for `dir`, relative to the config's folder. */
function dirEntry(configDir: string, dir: string): string {
  return importPath(configDir, dir);
}

/** Every plugin folder the config loads, resolved (undefined when it does not load). */
async function loadedDirs(file: string): Promise<string[] | undefined> {
  try {
    const config = await loadConfigFile(file);
    return (config.plugins?.dirs ?? []).map((d) => path.resolve(path.dirname(file), d));
  } catch {
    return undefined;
  }
}

/**
 * Adds `dir` to `plugins.dirs` of the workspace's config: creates m1nd.config.ts when there is none,
 * otherwise edits the text where `plugins.dirs`, `plugins` or the exported object begins, then loads
 * the edited config to check it now names the folder; anything else restores the file and returns
 * the one line to add by hand. The built-in plugins folder needs no wiring.
 */
export async function wirePlugin(workspace: string, dir: string, options: { configPath?: string; edit?: boolean } = {}): Promise<WireResult> {
  if (path.resolve(dir) === BUILTIN_PLUGIN_DIR) {
    return { action: 'present', message: 'wired: the built-in plugins folder is loaded by the default bundle' };
  }
  const file = options.configPath ? path.resolve(options.configPath) : findConfigFile(workspace);
  const configDir = file ? path.dirname(file) : workspace;
  const entry = dirEntry(configDir, dir);
  const line = `plugins: { dirs: [${JSON.stringify(entry).replace(/"/g, "'")}] },`;
  if (!file) {
    const target = path.join(workspace, 'm1nd.config.ts');
    if (options.edit === false) return { action: 'manual', message: `to load it, create ${target} with:\n  export default { ${line} };` };
    const typed = m1ndInstalledFrom(workspace);
    const text = typed
      ? `import { defineConfig } from 'm1nd';\n\nexport default defineConfig({\n  ${line}\n});\n`
      : `// m1nd configuration (docs/configuration.md). With m1nd installed here, wrap it in defineConfig from 'm1nd' for types.\nexport default {\n  ${line}\n};\n`;
    fs.writeFileSync(target, text);
    return { action: 'created', file: target, message: `wired: created ${target} loading ${entry}` };
  }
  const before = await loadedDirs(file);
  if (before?.includes(path.resolve(dir))) return { action: 'present', file, message: `wired: ${file} already loads ${entry}` };
  const manual: WireResult = { action: 'manual', file, message: `to load it, add ${JSON.stringify(entry)} to plugins.dirs in ${file}:\n  ${line}` };
  if (options.edit === false || before === undefined) return manual;
  const original = fs.readFileSync(file, 'utf8');
  const quoted = `'${entry.replace(/'/g, "\\'")}'`;
  // Each place a pattern matches is tried in turn (a match inside a comment fails the check and is rolled back).
  const edits: [RegExp, (m: string) => string][] = [
    [/\bplugins\s*:\s*\{[^{}]*?\bdirs\s*:\s*\[/g, (m) => `${m}${quoted}, `],
    [/\bplugins\s*:\s*\{/g, (m) => `${m} dirs: [${quoted}],`],
    [/(\bdefineConfig\s*\(\s*\{|\bexport\s+default\s*\{|\bmodule\.exports\s*=\s*\{)/g, (m) => `${m}\n  ${line}`],
  ];
  for (const [pattern, replace] of edits) {
    for (const match of [...original.matchAll(pattern)].slice(0, 5)) {
      const at = match.index ?? 0;
      fs.writeFileSync(file, `${original.slice(0, at)}${replace(match[0])}${original.slice(at + match[0].length)}`);
      if ((await loadedDirs(file))?.includes(path.resolve(dir))) return { action: 'edited', file, message: `wired: added ${entry} to plugins.dirs in ${file}` };
      fs.writeFileSync(file, original);
    }
  }
  return manual;
}
