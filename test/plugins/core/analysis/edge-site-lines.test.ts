import assert from 'node:assert/strict';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { git, touch, write } from '../../history/git-fixture.ts';
import { ingestedFixture } from './analysis-fixture.ts';

/** A function documented by two sections of one document, each mentioning it on its own line. */
const FILES: Record<string, string> = {
  'src/jobs.ts': `/** Runs one job. */
export function runJob(name: string): string {
  return name;
}
`,
  'docs/guide.md': `# Guide

## Starting

Call \`runJob\` to start a job.

## Details

Some words about jobs.

More words.

Again, \`runJob\` takes a name.
`,
};

describe('impact: the line of a documenting section is its own mention', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    h = await ingestedFixture({ files: FILES, watch: false });
  });
  after(() => h.close());

  it('gives each section the line where it mentions the node, not the first mention in the file', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'function:src/jobs.ts#runJob' });
    const lines = Object.fromEntries(
      json.direct.filter((d: { relation: string }) => d.relation.includes('documents')).map((d: { id: string; line: number }) => [d.id.replace(/^.*#/, ''), d.line]),
    );
    assert.deepEqual(lines, { 'Guide.Starting': 5, 'Guide.Details': 13 }, JSON.stringify(json.direct));
  });
});

describe('impact: the line of an import, and none for a co-change', function () {
  this.timeout(60000);
  let h: Harness;
  before(async () => {
    const ws = tempDir('m1nd-sites-');
    write(ws, {
      'pkg/__init__.py': '',
      'pkg/helper.py': 'def run():\n    return 1\n',
      'main.py': '# The entry point.\n\nfrom pkg import helper\n\n\ndef main():\n    return helper.run()\n',
      'notes/plan.txt': 'plan\n',
      'web/view.ts': 'export const view = 1;\n',
    });
    git(ws, ['init', '-q']);
    git(ws, ['add', '-A']);
    git(ws, ['commit', '-q', '-m', 'start']);
    // pkg/helper.py and web/view.ts change together, in commits of their own.
    for (let day = 1; day <= 5; day++) touch(ws, ['pkg/helper.py', 'web/view.ts'], day, `change ${day}`);
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'setup', path: ws });
  });
  after(() => h.close());

  it('finds a module imported by name from its package on the import line; a co-change has no line', async () => {
    const { json } = await h.call('impact', { agent_id: 'q', node_id: 'pkg/helper.py', max_depth: 1, detail: 'full' });
    const row = (id: string) => json.direct.find((d: { id: string }) => d.id === id);
    assert.equal(row('file:main.py')?.relation.split('+')[0], 'imports', JSON.stringify(json.direct));
    assert.equal(row('file:main.py').line, 3);
    assert.equal(row('file:web/view.ts')?.relation, 'co_changes', JSON.stringify(json.direct));
    assert.equal(row('file:web/view.ts').line, undefined, 'history, not a line of source');
  });
});
