import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { write } from '../../history/git-fixture.ts';

/**
 * glob's sort by activation ranks a file by the PageRank of the file and its symbols. In a Go package
 * no file imports another: hub.go's functions are called from every other file, yet its file node
 * has no more in-edges than theirs.
 */
describe('glob and metrics: a file ranks by the PageRank of the file and its symbols', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-glob-rank-');
    const caller = (name: string) => `package pkg\n\nfunc ${name}() int {\n\treturn Hub() + Helper()\n}\n`;
    write(ws, {
      'go.mod': 'module example.com/pkg\n\ngo 1.21\n',
      'hub.go': 'package pkg\n\nfunc Hub() int {\n\treturn 1\n}\n\nfunc Helper() int {\n\treturn 2\n}\n',
      'a.go': caller('A'),
      'b.go': caller('B'),
      'c.go': caller('C'),
      'd.go': caller('D'),
    });
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('puts hub.go first, its score holding its symbols', async () => {
    const { json } = await h.call('glob', { agent_id: 'q', pattern: '*.go', sort: 'activation' });
    assert.equal(json.total, 5);
    assert.equal(json.paths[0].path, 'hub.go', JSON.stringify(json.paths));
    assert.ok(json.paths[0].pagerank > json.paths[1].pagerank, JSON.stringify(json.paths));
  });

  it('gives metrics the same file score, so pagerank_desc puts hub.go first too', async () => {
    const { json } = await h.call('metrics', { agent_id: 'q', sort: 'pagerank_desc' });
    const glob = (await h.call('glob', { agent_id: 'q', pattern: '*.go', sort: 'activation' })).json;
    assert.equal(json.nodes[0].path, 'hub.go', JSON.stringify(json.nodes));
    assert.equal(json.nodes[0].pagerank, glob.paths[0].pagerank);
  });
});
