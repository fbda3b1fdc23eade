import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

describe('trust from fix commits', function () {
  this.timeout(120000);
  it('scores the file that keeps getting fixed lowest, with the fix commits as evidence', async () => {
    const ws = tempDir();
    write(ws, { 'buggy.ts': 'export const buggy = 1;\n', 'clean.ts': 'export const clean = 1;\n', 'b.ts': 'export const b = 1;\n', 'c.ts': 'export const c = 1;\n' });
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    touch(ws, ['buggy.ts'], 1, 'feat: parse dates');
    touch(ws, ['buggy.ts'], 2, 'fix: off-by-one in the parser');
    touch(ws, ['clean.ts'], 3, 'feat: add clean');
    touch(ws, ['buggy.ts'], 4, 'parser: handle leap years (closes #12)');
    touch(ws, ['clean.ts'], 5, 'docs: explain clean');
    touch(ws, ['buggy.ts'], 6, 'Revert "parser: speed up"');
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('trust', { agent_id: 'a' });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      const [first] = r.json.files;
      assert.equal(first.file, 'buggy.ts');
      assert.equal(first.fix_commits, 3);
      assert.ok(first.trust < 0.5 && first.risk_multiplier > 2, JSON.stringify(first));
      assert.deepEqual(first.evidence.map((e: any) => e.subject), ['Revert "parser: speed up"', 'parser: handle leap years (closes #12)', 'fix: off-by-one in the parser']);
      const clean = r.json.files.find((f: any) => f.file === 'clean.ts');
      assert.equal(clean.trust, 1);
      assert.deepEqual(clean.evidence, []);
    } finally {
      await h.close();
    }
  });
});
