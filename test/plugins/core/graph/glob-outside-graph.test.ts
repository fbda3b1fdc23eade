import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { write } from '../../history/git-fixture.ts';

/**
 * glob lists the graph's files; a pattern that matches none of them but matches workspace files the
 * ingest does not parse (config, scripts) names those, so "no match" is not read as "no such file".
 */
describe('glob: no match in the graph names the matching workspace files the graph does not hold', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-glob-');
    write(ws, {
      'src/app.ts': 'export const app = 1;\n',
      'pyproject.toml': '[project]\nname = "x"\n',
      'config/settings.yml': 'a: 1\n',
      'scripts/build': '#!/bin/sh\necho build\n',
      'node_modules/dep/dep.yml': 'b: 2\n',
      '.github/ci.yml': 'c: 3\n',
      '.gitignore': 'secret.yml\n',
      'secret.yml': 'd: 4\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('names pyproject.toml for *.toml', async () => {
    const { json } = await h.call('glob', { agent_id: 'q', pattern: '*.toml' });
    assert.equal(json.total, 0);
    assert.match(json.note, /holds 1 matching file\(s\) the graph does not .*"pyproject\.toml"/, json.note);
  });

  it('leaves out dependency, hidden and git-ignored files, and keeps a file named like a build folder', async () => {
    const yml = (await h.call('glob', { agent_id: 'q', pattern: '**/*.yml' })).json;
    assert.match(yml.note, /holds 1 matching file\(s\).*"config\/settings\.yml"/, yml.note);
    assert.doesNotMatch(yml.note, /node_modules|\.github|secret/);
    const scripts = (await h.call('glob', { agent_id: 'q', pattern: 'scripts/*' })).json;
    assert.match(scripts.note, /"scripts\/build"/, scripts.note);
  });

  it('keeps the plain advice when nothing on disk matches either, and honours scope', async () => {
    const none = (await h.call('glob', { agent_id: 'q', pattern: '*.nothing' })).json;
    assert.doesNotMatch(none.note, /holds/);
    assert.match(none.note, /relative to the workspace root/);
    const scoped = (await h.call('glob', { agent_id: 'q', pattern: '*.toml', scope: 'src' })).json;
    assert.doesNotMatch(scoped.note, /pyproject/);
  });
});
