/** What edit_preview and apply report about an edit: the dependents and tests the changed code really has. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../helpers/fixture-repo.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });

describe('edit reports: dependents and tests of the changed code', function () {
  this.timeout(60000);
  let h: Harness;
  let ws: string;
  before(async () => {
    ws = writeFixtureRepo(tempDir(), {
      'app/__init__.py': '',
      'app/enc.py': `def encode(value):\n    return str(value)\n`,
      'app/models.py': `from app.enc import encode\n\n\nclass Req:\n    def __init__(self, value):\n        self.body = encode(value)\n`,
      'app/client.py': `from app.models import Req\n\n\ndef build(value):\n    return Req(value)\n`,
      'app/other.py': `def other():\n    return 1\n`,
      'tests/test_other.py': `from app.other import other\n\n\ndef test_other():\n    assert other() == 1\n`,
    });
    // tests/test_other.py changes with app/enc.py in every commit: co-changed, yet it never runs encode.
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'add', '.');
    git(ws, 'commit', '-q', '-m', 'init');
    for (let i = 0; i < 4; i++) {
      fs.appendFileSync(path.join(ws, 'app/enc.py'), `# ${i}\n`);
      fs.appendFileSync(path.join(ws, 'tests/test_other.py'), `# ${i}\n`);
      git(ws, 'commit', '-qam', `pair ${i}`);
    }
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: ws });
  });
  after(() => h?.close());

  it('leaves out of tests_to_run a test that only changed together with the file in git', async () => {
    const { json } = await h.call('edit_preview', { agent_id: 'a', file_path: 'app/enc.py', hunks: [{ old_text: 'return str(value)', new_text: 'return repr(value)' }] });
    assert.deepEqual(json.graph_effect.symbols.changed.map((s: { id: string }) => s.id), ['function:app/enc.py#encode']);
    assert.deepEqual(json.graph_effect.tests_to_run, []);
  });

  it("names the callers of a class among the dependents of its changed __init__", async () => {
    const { json } = await h.call('edit_preview', { agent_id: 'a', file_path: 'app/models.py', hunks: [{ old_text: 'def __init__(self, value):', new_text: 'def __init__(self, value, strict):' }] });
    assert.deepEqual(json.graph_effect.symbols.changed.map((s: { id: string }) => s.id).sort(), ['class:app/models.py#Req', 'method:app/models.py#Req.__init__']);
    const of = json.graph_effect.dependents.filter((d: { of: string }) => d.of === 'method:app/models.py#Req.__init__').map((d: { id: string }) => d.id);
    assert.deepEqual(of, ['function:app/client.py#build']);
  });
});
