import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentId, definePlugin, defineVerb, Type } from '../../../core/index.ts';
import type { ExtensionChange, GraphService } from '../../../plugins/graph/api.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';

/** Extension modules as a user writes them: plain ES modules, default export called per file with the tree. */
const MODULES: Record<string, string> = {
  'calls.mjs': `export default ({ tree, query, language, path, text, source }) => ({
  calls: query(language === 'python' ? '(call) @c' : '(call_expression) @c').captures(tree.rootNode).length,
  rows: tree.rootNode.endPosition.row,
  same: source === text,
  path,
});
`,
  'slow.mjs': `export default () => { const end = Date.now() + 30; while (Date.now() < end); return { slow: true }; };\n`,
  'throws.mjs': `export default ({ path }) => { throw new Error('cannot read ' + path); };\n`,
};

const FILES: Record<string, string> = {
  'a.py': 'def f():\n    g()\n    h(1)\n',
  'b.py': 'print(1)\n',
  'c.ts': 'export function k(): void {\n  console.log(1);\n  k();\n}\n',
  'd.ts': 'export const x = 1;\n',
  'notes.md': '# Notes\n',
};

/** How often the engine read `user.calls`'s version (a getter), and how often before the first ingest. */
const versionReads = { n: 0, beforeIngest: -1 };

/** A user plugin: registers the extensions through the graph service and reads them back in a verb. */
function userPlugin(dir: string, changes: ExtensionChange[]) {
  return definePlugin({
    name: 'callcount',
    version: '1.0.0',
    requires: ['graph'],
    apply(ctx) {
      const graph = ctx.service<GraphService>('graph');
      const url = (name: string) => pathToFileURL(join(dir, name)).href;
      graph.registerParseExtension({
        key: 'user.calls',
        get version() {
          versionReads.n++;
          return '1';
        },
        module: url('calls.mjs'),
      });
      graph.registerParseExtension({ key: 'user.slow', version: '1', module: url('slow.mjs'), languages: ['python'], budgetMs: 5 });
      graph.registerParseExtension({ key: 'user.throws', version: '1', module: url('throws.mjs'), languages: ['typescript'] });
      graph.registerParseExtension({ key: 'user.missing', version: '1', module: url('nope.mjs'), languages: ['typescript'] });
      graph.engine.onExtensionData((c) => changes.push(c));
      ctx.registerVerb(
        defineVerb({
          name: 'call_counts',
          description: 'Calls per file, counted during the ingest.',
          input: Type.Object({ agent_id: AgentId, paths: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10 })) }),
          tiers: ['full'],
          effect: 'read',
          handler: async (args) => {
            const engine = graph.engine;
            return {
              calls: Object.fromEntries(engine.extensionData('user.calls', args.paths)),
              slow: [...engine.extensionData('user.slow').keys()].sort(),
              throws: engine.extensionData('user.throws').size,
              report: engine.parseExtensionReport(),
            };
          },
        }),
      );
    },
  });
}

describe('parse extensions: a user plugin\'s work on each parsed tree', function () {
  this.timeout(120_000);
  let h: Harness;
  let ws: string;
  let ingested: any;
  const changes: ExtensionChange[] = [];
  before(async () => {
    const dir = tempDir();
    for (const [name, text] of Object.entries(MODULES)) writeFileSync(join(dir, name), text);
    ws = writeFixtureRepo(tempDir(), FILES);
    h = await connect({ workspaceRoot: ws, plugins: [userPlugin(dir, changes)], env: { M1ND_TOOL_TIER: 'full', M1ND_CACHE_DIR: tempDir() }, config: { options: { structure: { backgroundFacts: false }, graph: { watch: false, typeCheck: false } } } });
    await h.call('health', { agent_id: 'a' });
    versionReads.beforeIngest = versionReads.n;
    const ing = await h.call('ingest', { agent_id: 'a', path: ws });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
    ingested = ing.json;
  });
  after(() => h?.close());

  it('reads a version given as a getter on first need (the ingest), once, not at registration', async () => {
    assert.equal(versionReads.beforeIngest, 0, 'the version was read before any ingest');
    const out = await h.call('call_counts', { agent_id: 'a', paths: ['a.py'] });
    assert.equal(out.json.calls['a.py'].calls, 2, JSON.stringify(out.json));
    assert.equal(versionReads.n, 1);
  });

  it('stores each code file\'s output from its own tree and serves it by path', async () => {
    const r = await h.call('call_counts', { agent_id: 'a' });
    assert.deepEqual(r.json.calls, {
      'a.py': { calls: 2, rows: 3, same: true, path: 'a.py' },
      'b.py': { calls: 1, rows: 1, same: true, path: 'b.py' },
      'c.ts': { calls: 2, rows: 4, same: true, path: 'c.ts' },
      'd.ts': { calls: 0, rows: 1, same: true, path: 'd.ts' },
    });
    const some = await h.call('call_counts', { agent_id: 'a', paths: ['c.ts', 'notes.md'] });
    assert.deepEqual(Object.keys(some.json.calls), ['c.ts']);
    assert.deepEqual(changes[0].keys.filter((k) => k.startsWith('user.')).sort(), ['user.calls', 'user.missing', 'user.slow', 'user.throws']);
    assert.deepEqual(changes[0].paths.sort(), ['a.py', 'b.py', 'c.ts', 'd.ts']);
  });

  it('skips and reports an extension over its per-file budget, one that throws and one that does not load; the ingest is unharmed', async () => {
    const r = await h.call('call_counts', { agent_id: 'a' });
    const rep = r.json.report;
    // The first Python file of the thread pays the warm-up and is exempt; the next one is over budget.
    assert.equal(rep['user.slow'].files, 2);
    assert.equal(rep['user.slow'].overBudget, 1);
    assert.equal(r.json.slow.length, 1);
    assert.equal(rep['user.throws'].failed, 2);
    assert.match(rep['user.throws'].errors[0].message, /cannot read (c|d)\.ts/);
    assert.equal(r.json.throws, 0);
    assert.equal(rep['user.missing'].failed, 2);
    assert.match(rep['user.missing'].errors[0].message, /load failed/);
    assert.equal(ingested.files.parsed, 5);
    assert.equal(ingested.nodesByKind.function, 2, 'the graph is built as without extensions');
  });

  it('refreshes an edited file on re-ingest, drops a deleted file, and tells the listeners', async () => {
    writeFileSync(join(ws, 'a.py'), 'def f():\n    g()\n    h(1)\n    i(2)\n    j(3)\n');
    rmSync(join(ws, 'b.py'));
    const before = changes.length;
    const ing = await h.call('ingest', { agent_id: 'a', path: ws, incremental: true });
    assert.equal(ing.result.isError, undefined, JSON.stringify(ing.json));
    const r = await h.call('call_counts', { agent_id: 'a' });
    assert.deepEqual(r.json.calls['a.py'], { calls: 4, rows: 5, same: true, path: 'a.py' });
    assert.equal(r.json.calls['b.py'], undefined);
    assert.deepEqual(Object.keys(r.json.calls).sort(), ['a.py', 'c.ts', 'd.ts']);
    const last = changes[changes.length - 1];
    assert.equal(changes.length, before + 1);
    assert.deepEqual(last.paths, ['a.py']);
    assert.deepEqual(last.removed, ['b.py']);
  });
});
