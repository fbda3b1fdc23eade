import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { write } from '../../history/git-fixture.ts';

/** search reads the graph's files; a word only in pyproject.toml is no match, and the answer says what was not searched. */
describe('search: no match says the files outside the graph were not searched', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-search-');
    write(ws, {
      'src/app.py': 'def app():\n    return 1\n',
      'pyproject.toml': '[build-system]\nrequires = ["hatchling"]\n',
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('hints, with matches and with count_only, that unparsed files were not searched', async () => {
    for (const extra of [{}, { count_only: true }]) {
      const { json } = await h.call('search', { agent_id: 'q', query: 'hatchling', ...extra });
      assert.equal(json.total_matches, 0);
      assert.equal(json.files_scanned, 1);
      assert.match(json.hint ?? '', /no match in the 1 file\(s\) of the graph; files the ingest does not parse .* were not searched/, JSON.stringify(json));
    }
  });

  it('gives no such hint when something matched', async () => {
    const { json } = await h.call('search', { agent_id: 'q', query: 'return' });
    assert.equal(json.total_matches, 1);
    assert.equal(json.hint, undefined);
  });
});
