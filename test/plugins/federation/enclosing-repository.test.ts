import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** A package whose examples folder (the workspace) requires it by climbing: `require('../..')`, `'../../'`, `'../../lib/core'` (express's examples). */
function examples(): { pkg: string; ws: string } {
  const pkg = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-encl-')));
  write(pkg, {
    'package.json': JSON.stringify({ name: 'pkg', version: '1.0.0', main: 'index.js' }),
    'index.js': "module.exports = require('./lib/core');\n",
    'lib/core.js': 'module.exports = function core() { return 1; };\n',
    'examples/a/index.js': "const pkg = require('../..');\npkg();\n",
    'examples/b/index.js': "const pkg = require('../../');\npkg();\n",
    'examples/c/index.js': "const core = require('../../lib/core');\ncore();\n",
    'examples/README.md': '# Examples\n\nThe socket is `/run/pkg/socket.sock`.\n',
  });
  return { pkg, ws: path.join(pkg, 'examples') };
}

describe('federation: a workspace inside the repository it requires', function () {
  this.timeout(120000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("external_references counts `../..` and `../../` as one folder, `..`, and an absolute path under its first folder", async () => {
    const { ws } = examples();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('external_references', { agent_id: 'a' })).json;
    // An absolute path's folder is its first one (uvicorn's docs `/path/to/socket.sock` was root '').
    assert.deepEqual(r.roots[0], { root: '..', references: 2, kinds: ['import'] });
    assert.deepEqual(r.roots.slice(1).sort((x: any, y: any) => x.root.localeCompare(y.root)), [
      { root: '../lib', references: 1, kinds: ['import'] },
      { root: '/run', references: 1, kinds: ['doc_link'] },
    ]);
    assert.deepEqual(r.references.map((x: any) => `${x.file}:${x.line} ${x.target}`).sort(), ['README.md:3 /run/pkg/socket.sock', 'a/index.js:1 ..', 'b/index.js:1 ..', 'c/index.js:1 ../lib/core']);
  });

  it('federate_auto finds the enclosing package the climbs reach (express/examples found no candidate)', async () => {
    const { pkg, ws } = examples();
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: pkg } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('federate_auto', { agent_id: 'a' })).json;
    assert.deepEqual(
      r.candidates.map((c: any) => [c.path, c.packages, c.reasons, c.allowed]),
      [['..', ['pkg'], ['import_reference'], true]],
      JSON.stringify(r).slice(0, 600),
    );
  });

  it('federate_auto takes a required file to the nearest folder holding a manifest (`../../lib/core` lies in `..`)', async () => {
    const { pkg, ws } = examples();
    fs.rmSync(path.join(ws, 'a'), { recursive: true });
    fs.rmSync(path.join(ws, 'b'), { recursive: true });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: pkg } });
    await h.call('ingest', { agent_id: 'a', path: ws });
    const r = (await h.call('federate_auto', { agent_id: 'a' })).json;
    assert.deepEqual(r.candidates.map((c: any) => [c.path, c.packages]), [['..', ['pkg']]], JSON.stringify(r).slice(0, 600));
  });
});
