/** `m1nd new-plugin NAME`: writes a plugin folder a newcomer can copy from (index, one verb, a test). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(import.meta.url);
// From sources the scaffold imports core/index.ts; compiled, the bundle (dist/m1nd.js), which is the
// module the running CLI uses, so the plugin shares its classes (M1ndError) with the host.
const FROM_SOURCES = HERE.endsWith('.ts');
const CORE_INDEX = FROM_SOURCES ? path.join(path.dirname(HERE), 'index.ts') : path.join(path.dirname(HERE), '..', 'm1nd.js');

function importPath(fromDir: string, file: string): string {
  const rel = path.relative(fromDir, file).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Creates `<dir>/<name>/` with index.ts, verbs/<verb>.ts and <name>.test.ts; returns the files written. */
export function scaffoldPlugin(name: string, dir: string): string[] {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`plugin name "${name}" must be kebab-case (a-z, 0-9, -)`);
  const root = path.resolve(dir, name);
  if (fs.existsSync(root)) throw new Error(`${root} already exists; pick another name or remove it`);
  const verb = `${name.replace(/-/g, '_')}_hello`;
  const core = importPath(root, CORE_INDEX);
  const coreFromVerbs = importPath(path.join(root, 'verbs'), CORE_INDEX);
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
    [`${name}.test.ts`]: `import assert from 'node:assert/strict';
import { connectInMemory } from '${testing}';
import plugin from './index.ts';

describe('${name} plugin', function () {
  it('greets through a real MCP client and counts calls per agent', async () => {
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
