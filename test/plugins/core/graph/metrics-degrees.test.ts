import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { git, touch, write } from '../../history/git-fixture.ts';

/**
 * metrics' in/out degree is structure. `pkg/helper.py` is imported by `main.py` only, and changes in
 * git together with three files that never import it: those co-changes are history, not fan-in.
 */
describe('metrics: degrees count code edges, not git co-changes', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-metrics-');
    write(ws, {
      'pkg/__init__.py': '',
      'pkg/helper.py': 'def run():\n    return 1\n',
      'main.py': 'from pkg import helper\n\n\ndef main():\n    return helper.run()\n',
      'web/a.ts': 'export const a = 1;\n',
      'web/b.ts': 'export const b = 2;\n',
      'web/c.ts': 'export const c = 3;\n',
    });
    git(ws, ['init', '-q']);
    git(ws, ['add', '-A']);
    git(ws, ['commit', '-q', '-m', 'start']);
    for (let day = 1; day <= 5; day++) touch(ws, ['pkg/helper.py', 'web/a.ts', 'web/b.ts', 'web/c.ts'], day, `change ${day}`);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('gives the helper the in-degree of its importer and container, whatever git says', async () => {
    const impact = (await h.call('impact', { agent_id: 'q', node_id: 'pkg/helper.py', max_depth: 1, detail: 'full' })).json;
    const coChanges = impact.direct.filter((d: { relation: string }) => d.relation === 'co_changes').length;
    assert.equal(coChanges, 3, `the fixture has its co-change edges: ${JSON.stringify(impact.direct)}`);
    const { json } = await h.call('metrics', { agent_id: 'q', scope: 'pkg/helper.py', node_types: ['file'] });
    const helper = json.nodes.find((n: { id: string }) => n.id === 'file:pkg/helper.py');
    // In: main.py's import and the package module that contains the file; never the three co-changes.
    assert.ok(helper.in_degree >= 1 && helper.in_degree <= 2, `in_degree ${helper.in_degree}: ${JSON.stringify(impact.direct)}`);
    // Out: the function it contains, nothing else.
    assert.equal(helper.out_degree, 1, JSON.stringify(helper));
  });
});
